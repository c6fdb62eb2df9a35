// kirk_hwu cpu: the documents' CPU baselines, timed on one core, with their error against FP64.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "kirk_hwu/app/commands.hpp"
#include "kirk_hwu/reference.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu cpu` (experiments/studies/kirk_hwu.py lists them too).
const std::vector<std::string> cpu_columns = {"experiment", "problem", "precision", "size", "repeat", "seconds",
                                              "pairs", "pairs_per_second", "max_rel_err", "rel_l2_err"};

/// Above this many pair evaluations (repeats and reference) `cpu` is refused unless --force.
constexpr double max_cpu_pairs = 1e13;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class Real>
std::vector<double> widened(const std::vector<Real>& r, const std::vector<Real>& i) {
    std::vector<double> out(r.begin(), r.end());
    out.insert(out.end(), i.begin(), i.end());
    return out;
}

}  // namespace

int command_cpu(const std::vector<std::string>& args) {
    const harness::Options o(args,
                             {{"--problem"}, {"--precision"}, {"--size"}, {"--repeats"}, {"--experiment"}, {"--csv"},
                              {"--threads"}, {"--force", harness::OptionKind::flag}, {"--help", harness::OptionKind::flag}},
                             "kirk_hwu cpu");
    if (o.has("--help")) {
        std::puts("kirk_hwu cpu [--problem mri-q|mri-fhd|coulomb] [--precision f64|f32] [--size tiny|small|medium|full]\n"
                  "             [--repeats 3] [--threads N] [--experiment NAME] [--csv FILE] [--force]\n"
                  "  times the documents' CPU baseline on one core, with its error against an FP64 reference computed\n"
                  "  on --threads threads (default: all cores); work above 1e13 pair evaluations needs --force");
        return 0;
    }
    const std::string problem = o.choice("--problem", {"mri-q", "mri-fhd", "coulomb"}, "mri-q");
    const std::string precision = o.choice("--precision", {"f64", "f32"}, "f64");
    const std::string size_text = o.choice("--size", {"tiny", "small", "medium", "full"}, "small");
    const int repeats = static_cast<int>(o.integer("--repeats", 3, 1, 1000));
    const int threads = static_cast<int>(o.integer("--threads", std::max(1u, std::thread::hardware_concurrency()), 1, 4096));
    const Size size = parse_size(size_text);
    if (o.has("--csv")) harness::check_outputs("kirk_hwu cpu", {}, {{"--csv", o.text("--csv")}});
    std::unique_ptr<harness::CsvAppender> csv;
    if (o.has("--csv")) csv = std::make_unique<harness::CsvAppender>(o.text("--csv"), cpu_columns);

    std::vector<double> reference;
    double pairs = 0;
    MriInput mri;
    CoulombInput dcs;
    const MriOutput out = problem == "mri-q" ? MriOutput::q : MriOutput::fhd;
    // The FP64 reference of every output, on all cores (outside the timing).
    // What the command will cost, before the reference: every repeat and the reference evaluate every pair.
    const auto estimate = [&] {
        const double work = pairs * (repeats + 1);
        std::fprintf(stderr, "kirk_hwu cpu: about %.3g pair evaluations (%.3g pairs x %d repeats and the reference)\n", work,
                     pairs, repeats);
        if (work > max_cpu_pairs && !o.has("--force"))
            throw o.error("--size", "with --repeats asks for about " + harness::short_number(work) +
                                        " pair evaluations, above the limit of 1e13: lower them, or give --force");
    };
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
    for (int rep = 0; rep < repeats; ++rep) {
        std::vector<double> result;
        const auto t0 = std::chrono::steady_clock::now();
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
        const double seconds = seconds_since(t0);
        const ErrorStats e = compare(reference, result);
        std::printf("%s %s %s repeat %d: %.3f s, %.3g pairs/s, max rel err %.3g, rel L2 err %.3g\n", problem.c_str(),
                    precision.c_str(), size_text.c_str(), rep, seconds, pairs / seconds, e.max_rel, e.rel_l2);
        if (csv)
            csv->row({o.text("--experiment", "cpu"), problem, precision, size_text, std::to_string(rep),
                      harness::csv_number(seconds), harness::csv_number(pairs), harness::csv_number(pairs / seconds),
                      harness::csv_number(e.max_rel), harness::csv_number(e.rel_l2)});
    }
    return 0;
}

}  // namespace kirk_hwu::app
