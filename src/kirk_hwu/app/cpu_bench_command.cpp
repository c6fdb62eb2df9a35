// kirk_hwu cpu-bench: the documents' single-thread loops and the tuned ones (src/kirk_hwu/tuned.hpp) on one
// share of one input, each checked against the FP64 reference, then timed by the harness's CPU engine.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "harness/csv.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "kirk_hwu/app/commands.hpp"
#include "kirk_hwu/reference.hpp"
#include "kirk_hwu/tuned.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu cpu-bench` (experiments/studies/kirk_hwu.py lists them too).
const std::vector<std::string> bench_columns = harness::with_timing_columns(
    {"experiment", "problem", "loop", "precision", "size", "points", "terms", "pairs", "repeat", "ms", "pairs_per_second",
     "valid", "max_rel_err", "rel_l2_err", "tolerance"});

/// Above this many pair evaluations (the minimum samples of every loop) the command is refused unless --force.
constexpr double max_pairs = 1e12;

/// The share of an input a loop runs over: the first @p points voxels (MRI) or the first lattice rows of the
/// first slice holding at least @p points points (Coulomb); every sample or atom is kept, so the loop's rate
/// is its rate on the whole input. 0: the whole input.
struct Share {
    MriInput mri;
    CoulombInput dcs;
    std::size_t points = 0, terms = 0;
};

Share share_of(const std::string& problem, Size size, std::size_t points) {
    Share s;
    if (problem == "coulomb") {
        s.dcs = make_coulomb_input(size);
        if (points && points < s.dcs.points()) {
            s.dcs.gz = 1;
            s.dcs.gy = static_cast<int>(std::min<std::size_t>((points + s.dcs.gx - 1) / s.dcs.gx, s.dcs.gy));
        }
        s.points = s.dcs.points(), s.terms = s.dcs.atom_count();
    } else {
        s.mri = make_mri_input(size);
        if (points && points < s.mri.voxels()) {
            s.mri.x.resize(points), s.mri.y.resize(points), s.mri.z.resize(points);
        }
        s.points = s.mri.voxels(), s.terms = s.mri.samples();
    }
    return s;
}

}  // namespace

int command_cpu_bench(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 10;
    defaults.stop.noise_target_pct = 1.0;
    defaults.stop.time_limit_s = 10.0;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--problems", "LIST", "comma-separated problems: mri-q, mri-fhd, coulomb", "mri-q,mri-fhd,coulomb"),
        opt::value("--loops", "LIST", "comma-separated loops: documents (the documents' loop), tuned (src/kirk_hwu/tuned.hpp)",
                   "documents,tuned"),
        opt::value("--size", "tiny|small|medium|full", "the input", "small"),
        opt::value("--points", "N", "the first N voxels or lattice points of the input (every sample or atom kept)",
                   "0: all"),
        opt::value("--check-points", "N", "points of the share compared with the FP64 reference", "2048"),
        opt::value("--threads", "N", "threads of the FP64 reference", "all cores"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "cpu_bench"),
        opt::required("--csv", "FILE", "append one row per sample (- for standard output)"),
        opt::flag("--force", "run work above 1e12 pair evaluations")};
    for (auto& s : harness::host_measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about =
        "Times single-precision CPU loops on one thread: the documents' loop (samples outer, voxels inner, library "
        "sin and cos; the Coulomb loop over points and atoms) and the tuned loop Ryoo et al. compared with (cache "
        "blocking, vectorisation, sin and cos from short polynomials), over a share of the input's points with every "
        "sample or atom, so that the rate is the loop's rate on the whole input. Each loop is compared with the FP64 "
        "reference before it is timed: relative L2 error at most 1e-3, else its rows are marked invalid and the "
        "command ends with status 1. It prints its estimate first.";
    const harness::Options o(args, specs, "kirk_hwu cpu-bench", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "kirk_hwu cpu-bench", measure, "one pass of the loop over the share, host steady clock"))
        return 0;
    const auto problems = o.choices("--problems", {"mri-q", "mri-fhd", "coulomb"}, "mri-q,mri-fhd,coulomb");
    const auto loops = o.choices("--loops", {"documents", "tuned"}, "documents,tuned");
    const std::string size_text = o.choice("--size", {"tiny", "small", "medium", "full"}, "small");
    const Size size = parse_size(size_text);
    const auto points = static_cast<std::size_t>(o.integer("--points", 0, 0, 1LL << 32));
    const auto check_count = static_cast<std::size_t>(o.integer("--check-points", 2048, 1, 1 << 22));
    const int threads = static_cast<int>(o.integer("--threads", std::max(1u, std::thread::hardware_concurrency()), 1, 4096));
    const std::string csv_path = o.require("--csv");
    harness::check_outputs("kirk_hwu cpu-bench", {}, {{"--csv", csv_path}});
    const std::string experiment = o.text("--experiment", "cpu_bench");

    // What the command will cost, before any input is built: every loop's minimum samples and its check.
    double work = 0;
    for (const auto& problem : problems) {
        const double full = problem == "coulomb"
                                ? static_cast<double>(coulomb_shape(size).gx) * coulomb_shape(size).gy * coulomb_shape(size).gz *
                                      coulomb_shape(size).atoms
                                : static_cast<double>(mri_shape(size).grid) * mri_shape(size).grid * mri_shape(size).grid *
                                      mri_shape(size).samples;
        const double terms = problem == "coulomb" ? coulomb_shape(size).atoms : mri_shape(size).samples;
        const double part = points ? std::min(full, static_cast<double>(points + 1024) * terms) : full;
        work += part * (measure.stop.min_samples + 1) * static_cast<double>(loops.size());
    }
    std::fprintf(stderr, "kirk_hwu cpu-bench: about %.3g pair evaluations on one thread (the minimum samples and the checks)\n", work);
    if (work > max_pairs && !o.has("--force"))
        throw o.error("--points", "asks for about " + harness::short_number(work) +
                                      " pair evaluations, above the limit of 1e12: lower --points or --size, or give --force");

    harness::CsvAppender csv(csv_path, bench_columns);
    int failures = 0;
    for (const auto& problem : problems) {
        const Share s = share_of(problem, size, points);
        const bool mri = problem != "coulomb";
        const MriOutput out = problem == "mri-q" ? MriOutput::q : MriOutput::fhd;
        const std::vector<std::size_t> check_points = spread_subset(s.points, check_count);
        const std::vector<double> reference =
            mri ? mri_reference(s.mri, out, check_points, threads) : coulomb_reference(s.dcs, check_points, threads);
        const double pairs = static_cast<double>(s.points) * static_cast<double>(s.terms);
        for (const auto& loop : loops) {
            std::vector<float> r, i;
            const std::function<void()> run = [&] {
                if (mri) {
                    if (loop == "tuned") tuned::mri(s.mri, out, r, i);
                    else mri_cpu_scatter(s.mri, out, r, i);
                } else {
                    if (loop == "tuned") tuned::coulomb(s.dcs, r);
                    else coulomb_cpu(s.dcs, r);
                }
            };
            // Checked before it is timed: the result at the check points against the FP64 reference.
            run();
            std::vector<double> got;
            for (std::size_t p : check_points) got.push_back(r.at(p));
            if (mri)
                for (std::size_t p : check_points) got.push_back(i.at(p));
            const ErrorStats e = compare(reference, got);
            const bool valid = e.rel_l2 <= tuned::tuned_tolerance;
            failures += valid ? 0 : 1;
            const harness::Measurement m = harness::measure_host(measure, run);
            const auto ms = m.ms();
            for (std::size_t k = 0; k < ms.size(); ++k)
                csv.row(harness::with_timing_values(
                    {experiment, problem, loop, "f32", size_text, std::to_string(s.points), std::to_string(s.terms),
                     harness::csv_number(pairs), std::to_string(k), harness::csv_number(ms[k]),
                     harness::csv_number(pairs / (ms[k] * 1e-3)), valid ? "true" : "false", harness::csv_number(e.max_rel),
                     harness::csv_number(e.rel_l2), harness::csv_number(tuned::tuned_tolerance)},
                    m, k));
            std::printf("%s %s %s: %zu points x %zu terms, %.4g ms median (%zu samples, %s), %.3g pairs/s, rel L2 %.3g%s\n",
                        problem.c_str(), loop.c_str(), size_text.c_str(), s.points, s.terms, m.summary().median, ms.size(),
                        m.stop_reason.c_str(), pairs / (m.summary().median * 1e-3), e.rel_l2,
                        valid ? "" : "  OUTSIDE THE TOLERANCE");
        }
    }
    return failures ? 1 : 0;
}

}  // namespace kirk_hwu::app
