// kirk_hwu solver: the reconstruction's linear solver on the CPU (conjugate gradients, AᴴA through the Toeplitz
// kernel's FFTs, one thread, FP64), timed by the harness's CPU engine: the "Linear Solver" column of the
// documents' summary table, whose CPU rows the GPU reconstruction alone cannot give. Q and F^H d come from the
// GPU (the pipeline of `kirk_hwu reconstruct --device gpu`, which also solves on the GPU from the same values)
// or, on small inputs, from the CPU's FP64 sums; the CPU solve is checked against that other solve before it
// is timed.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "harness/csv.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "kirk_hwu/app/commands.hpp"
#include "kirk_hwu/recon/pipeline.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu solver` (experiments/studies/kirk_hwu.py lists them too).
const std::vector<std::string> solver_columns = harness::with_timing_columns(
    {"experiment", "size", "grid", "kspace_samples", "source", "q_variant", "fhd_variant", "lambda", "iterations", "repeat",
     "solver_ms", "spectrum_ms", "reference", "reference_solver_ms", "rel_l2_diff", "final_residual", "valid", "tolerance"});

/// The bound on the relative L2 difference between the timed CPU solve and the other solve of the same system
/// (the GPU's with cuFFT, or the CPU's with AᴴA applied directly): both in FP64 from the same Q and F^H d.
constexpr double agreement = 1e-5;

}  // namespace

int command_solver(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 2;
    defaults.stop.max_samples = 5;
    defaults.stop.noise_target_pct = 2.0;
    defaults.stop.time_limit_s = 300.0;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--size", "tiny|small|medium|full", "the reconstruction's size", "tiny"),
        opt::value("--source", "gpu|cpu", "where Q and F^H d come from", "cpu"),
        opt::value("--q-variant", "NAME", "--source gpu: the Q variant", recon::GpuChoice{}.q_variant),
        opt::value("--fhd-variant", "NAME", "--source gpu: the F^H d variant", recon::GpuChoice{}.fhd_variant),
        opt::value("--iterations", "N", "conjugate-gradient iterations, all run (no early stop)", "30"),
        opt::value("--lambda", "X", "the regularisation weight", "0.01"),
        opt::value("--threads", "N", "--source cpu: threads of the FP64 sums of Q and F^H d", "all cores"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "solver"),
        opt::required("--csv", "FILE", "append one row per sample (- for standard output)"),
        opt::flag("--force", "run --source cpu at the medium and full sizes (hours)")};
    for (auto& s : harness::host_measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about =
        "Times the reconstruction's linear solver on the CPU: conjugate gradients on (AᴴA + λR) ρ = F^H d in FP64 on "
        "one thread, AᴴA applied through the Toeplitz kernel's FFTs. Q and F^H d come from the GPU (which also solves "
        "the same system with cuFFT) or from the CPU's FP64 sums (the same system then also solved with AᴴA applied "
        "directly). The timed solves' image must agree with that other solve's within a relative L2 difference of "
        "1e-5 (checked after the timing, before any row is written), else its rows are marked invalid and the "
        "command ends with status 1. The Toeplitz "
        "kernel's spectrum (one FFT) is timed once, apart.";
    const harness::Options o(args, specs, "kirk_hwu solver", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "kirk_hwu solver", measure,
                                          "one whole conjugate-gradient solve on one CPU thread, host steady clock"))
        return 0;
    const std::string size_text = o.choice("--size", {"tiny", "small", "medium", "full"}, "tiny");
    const Size size = parse_size(size_text);
    const std::string source = o.choice("--source", {"gpu", "cpu"}, "cpu");
    recon::ReconSettings settings;
    settings.lambda = o.real("--lambda", 1e-2);
    if (settings.lambda < 0) throw o.error("--lambda", "must be zero or positive");
    settings.cg.max_iterations = static_cast<int>(o.integer("--iterations", 30, 1, 10000));
    settings.cg.tolerance = 0;
    settings.keep_inputs = true;
    settings.threads = static_cast<int>(o.integer("--threads", std::max(1u, std::thread::hardware_concurrency()), 1, 4096));
    recon::GpuChoice choice;
    choice.q_variant = o.text("--q-variant", choice.q_variant);
    choice.fhd_variant = o.text("--fhd-variant", choice.fhd_variant);
    if (source == "cpu")
        for (const char* gpu_only : {"--q-variant", "--fhd-variant"})
            if (o.has(gpu_only)) throw o.error(gpu_only, "names a GPU variant; --source cpu computes Q and F^H d in FP64");
    if (source == "cpu" && (size == Size::medium || size == Size::full) && !o.has("--force"))
        throw o.error("--size", size_text + " with --source cpu sums Q over (2N₁)³ voxels on the CPU and applies AᴴA directly "
                                            "for the check: hours; use --source gpu, or tiny or small, or give --force");
    const std::string csv_path = o.require("--csv");
    harness::check_outputs("kirk_hwu solver", {}, {{"--csv", csv_path}});
    const std::string experiment = o.text("--experiment", "solver");

    const recon::ReconShape shape = recon::recon_shape(size);
    const recon::ReconProblem problem = recon::make_recon_problem(shape, recon::head_phantom());
    const int g = shape.grid;
    std::fprintf(stderr, "kirk_hwu solver: %d³ voxels, %zu samples; the timed solve: %d iterations of two (%d)³ FFTs "
                         "each on one thread, at least %d times\n",
                 g, problem.samples(), settings.cg.max_iterations, 2 * g, measure.stop.min_samples);

    // Q, F^H d and the other solve of the same system.
    recon::ReconOutcome given;
    recon::ComplexVector other;
    double other_ms = 0;
    std::string reference;
    if (source == "gpu") {
        given = recon::reconstruct_gpu(problem, settings, choice);
        other = given.iterative, other_ms = given.times.solver_ms, reference = "gpu-cufft";
    } else {
        given = recon::reconstruct_cpu(problem, settings);
        recon::ReconSettings direct = settings;
        direct.direct = true, direct.keep_inputs = false;
        const recon::ReconOutcome d = recon::reconstruct_cpu(problem, direct);
        other = d.iterative, other_ms = d.times.solver_ms, reference = "cpu-direct";
    }
    const auto t0 = harness::steady_seconds();
    const recon::ToeplitzKernel kernel = recon::toeplitz_kernel(g, given.q_values);
    const double spectrum_ms = (harness::steady_seconds() - t0) * 1e3;

    // Each sample is a whole solve of minutes, so no solve is spent on a check alone: the image of the last timed
    // solve (every solve is the same single-threaded computation on the same inputs) is checked against the other
    // solve's before any row is written.
    recon::CgResult solved;
    const harness::Measurement m = harness::measure_host(measure, [&] {
        solved = recon::solve_cpu(kernel, g, settings.lambda, given.fhd_values, settings.cg);
    });
    const ErrorStats diff = compare(recon::split(other), recon::split(solved.x));
    const bool valid = diff.rel_l2 <= agreement;
    const double residual = solved.history.empty() ? 0.0 : solved.history.back().residual;
    harness::CsvAppender csv(csv_path, solver_columns);
    const auto n = [](double v) { return harness::csv_number(v); };
    const std::string qv = source == "gpu" ? choice.q_variant : "cpu-f64", fv = source == "gpu" ? choice.fhd_variant : "cpu-f64";
    const auto ms = m.ms();
    for (std::size_t k = 0; k < ms.size(); ++k)
        csv.row(harness::with_timing_values({experiment, size_text, std::to_string(g), std::to_string(problem.samples()), source,
                                             qv, fv, n(settings.lambda), std::to_string(settings.cg.max_iterations),
                                             std::to_string(k), n(ms[k]), n(spectrum_ms), reference, n(other_ms),
                                             n(diff.rel_l2), n(residual), valid ? "true" : "false", n(agreement)},
                                            m, k));
    std::printf("solver %s (%s source): %.4g ms median over %zu samples (%s), spectrum %.4g ms; %s solve %.4g ms; "
                "images differ by rel L2 %.3g%s\n",
                size_text.c_str(), source.c_str(), m.summary().median, ms.size(), m.stop_reason.c_str(), spectrum_ms,
                reference.c_str(), other_ms, diff.rel_l2, valid ? "" : "  MORE THAN THE AGREEMENT BOUND");
    return valid ? 0 : 1;
}

}  // namespace kirk_hwu::app
