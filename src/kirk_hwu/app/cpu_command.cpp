// kirk_hwu cpu: the documents' CPU baselines, timed on one core through the harness's CPU measurement
// engine, with their error against FP64.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "harness/csv.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "harness/progress.hpp"
#include "kirk_hwu/app/commands.hpp"
#include "kirk_hwu/reference.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu cpu` (experiments/studies/kirk_hwu.py lists them too), then the engine's
/// columns of a host measurement.
const std::vector<std::string> cpu_columns = harness::with_host_timing_columns(
    {"experiment", "problem", "precision", "size", "repeat", "seconds", "pairs", "pairs_per_second", "max_rel_err",
     "rel_l2_err"});

/// Above this many pair evaluations (the samples and the reference) `cpu` is refused unless --force.
constexpr double max_cpu_pairs = 1e13;

/// Rough single-thread rates [pairs/s] of the loops, for the estimate before the work (measured on a 2-core
/// x86 development machine with the tiny and small sizes; another CPU differs, and the progress corrects it).
double rough_pairs_per_second(const std::string& problem) { return problem == "coulomb" ? 3e8 : 4e7; }

template <class Real>
std::vector<double> widened(const std::vector<Real>& r, const std::vector<Real>& i) {
    std::vector<double> out(r.begin(), r.end());
    out.insert(out.end(), i.begin(), i.end());
    return out;
}

}  // namespace

int command_cpu(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    // A sample takes seconds to minutes: three samples unless more are asked for.
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 3;
    defaults.stop.time_limit_s = 3600;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--problem", "mri-q|mri-fhd|coulomb", "the computation", "mri-q"),
        opt::value("--precision", "f64|f32", "the loop's floating-point precision", "f64"),
        opt::value("--size", "tiny|small|medium|full", "the input", "small"),
        opt::value("--threads", "N", "threads of the FP64 reference the error is measured against", "all cores"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "cpu"),
        opt::csv("one row per sample"),
        opt::flag("--force", "run work above 1e13 pair evaluations")};
    for (auto& s : harness::host_measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about = "Times the documents' CPU baseline loop on one core, with its error against an FP64 reference "
                 "computed on --threads threads. It prints its estimate first and its progress while it runs.";
    const harness::Options o(args, specs, "kirk_hwu cpu", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "kirk_hwu cpu", measure, "one run of the CPU loop on one core, host steady clock"))
        return 0;
    // A user's --time-limit bounds the whole command, counted from here.
    harness::Deadline deadline = o.has("--time-limit") ? harness::Deadline(measure.stop.time_limit_s) : harness::Deadline();
    const std::string problem = o.choice("--problem", {"mri-q", "mri-fhd", "coulomb"}, "mri-q");
    const std::string precision = o.choice("--precision", {"f64", "f32"}, "f64");
    const std::string size_text = o.choice("--size", {"tiny", "small", "medium", "full"}, "small");
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = static_cast<int>(o.integer("--threads", cores, 1, 4096));
    const Size size = parse_size(size_text);
    if (o.has("--csv")) harness::check_outputs("kirk_hwu cpu", {}, {{"--csv", o.text("--csv")}});
    std::unique_ptr<harness::CsvAppender> csv;
    if (o.has("--csv")) csv = std::make_unique<harness::CsvAppender>(o.text("--csv"), cpu_columns);

    std::vector<double> reference;
    double pairs = 0;
    MriInput mri;
    CoulombInput dcs;
    const MriOutput out = problem == "mri-q" ? MriOutput::q : MriOutput::fhd;
    // The progress of the whole command, in single-thread sample-times: the reference (on every core it has)
    // counts as a share of one sample, each sample as one.
    const double reference_share = 1.0 / std::min(threads, cores);
    const double planned = reference_share + measure.stop.min_samples;
    harness::ProgressBar progress("kirk_hwu cpu", true);
    double done = 0;
    const auto advance = [&](double steps) {
        done += steps;
        progress.update(static_cast<std::size_t>(1000 * done), static_cast<std::size_t>(1000 * std::max(planned, done)));
    };
    // What the command will cost, before the reference: every sample and the reference evaluate every pair.
    const auto estimate = [&] {
        const double work = pairs * (measure.stop.min_samples + 1);
        const double seconds = pairs * planned / rough_pairs_per_second(problem);
        std::fprintf(stderr,
                     "kirk_hwu cpu: about %.3g pair evaluations (%.3g pairs x %d samples or more, and the reference on %d "
                     "threads): about %s at a rough %.0e pairs per second and thread%s\n",
                     work, pairs, measure.stop.min_samples, threads, harness::duration_text(seconds).c_str(),
                     rough_pairs_per_second(problem),
                     deadline.set() && seconds > deadline.limit_s() ? "; --time-limit stops it before" : "");
        if (work > max_cpu_pairs && !o.has("--force"))
            throw o.error("--size", "with --min-samples asks for about " + harness::short_number(work) +
                                        " pair evaluations, above the limit of 1e13: lower them, or give --force");
    };
    // The FP64 reference of every output, on all cores (outside the timing).
    if (problem == "coulomb") {
        dcs = make_coulomb_input(size);
        pairs = static_cast<double>(dcs.points()) * dcs.atom_count();
        estimate();
        reference = coulomb_reference(dcs, spread_subset(dcs.points(), dcs.points()), threads);
    } else {
        mri = make_mri_input(size);
        pairs = static_cast<double>(mri.voxels()) * mri.samples();
        estimate();
        reference = mri_reference(mri, out, spread_subset(mri.voxels(), mri.voxels()), threads);
    }
    advance(reference_share);
    deadline.note("the FP64 reference (no sample)");
    // Every sample computes the same output; the last one is compared with the reference.
    std::vector<double> result;
    const harness::Measurement m = harness::measure_host(measure, [&] {
        if (problem == "coulomb") {
            if (precision == "f64") {
                std::vector<double> g;
                coulomb_cpu(dcs, g);
                result = g;
            } else {
                std::vector<float> g;
                coulomb_cpu(dcs, g);
                result.assign(g.begin(), g.end());
            }
        } else if (precision == "f64") {
            std::vector<double> r, i;
            mri_cpu_scatter(mri, out, r, i);
            result = widened(r, i);
        } else {
            std::vector<float> r, i;
            mri_cpu_scatter(mri, out, r, i);
            result = widened(r, i);
        }
        advance(1);
    }, deadline);
    const ErrorStats e = compare(reference, result);
    for (std::size_t s = 0; s < m.samples.size(); ++s) {
        const double seconds = m.samples[s].ms / 1e3;
        std::printf("%s %s %s sample %zu: %.3f s, %.3g pairs/s, max rel err %.3g, rel L2 err %.3g\n", problem.c_str(),
                    precision.c_str(), size_text.c_str(), s, seconds, pairs / seconds, e.max_rel, e.rel_l2);
        if (csv)
            csv->row(harness::with_host_timing_values(
                {o.text("--experiment", "cpu"), problem, precision, size_text, std::to_string(s), harness::csv_number(seconds),
                 harness::csv_number(pairs), harness::csv_number(pairs / seconds), harness::csv_number(e.max_rel),
                 harness::csv_number(e.rel_l2)},
                m, s));
    }
    return 0;
}

}  // namespace kirk_hwu::app
