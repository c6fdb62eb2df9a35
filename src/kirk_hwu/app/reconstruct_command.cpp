// kirk_hwu reconstruct: the iterative reconstruction the Q and F^H d kernels exist for, and the gridding
// reconstruction beside it, on a phantom whose k-space data are exact; images, errors and times per stage.
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <thread>

#include "harness/atomic_file.hpp"
#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "harness/progress.hpp"
#include "harness/output_paths.hpp"
#if defined(KIRK_HWU_WITH_CUDA)
#include "harness/check.hpp"
#endif
#include "kirk_hwu/app/commands.hpp"
#include "kirk_hwu/recon/npy.hpp"
#include "kirk_hwu/recon/pipeline.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu reconstruct --csv`: one row per method (iterative, gridding).
const std::vector<std::string> reconstruct_columns = {
    "experiment", "device", "size", "grid", "samples", "method", "q_variant", "fhd_variant", "q_threads_per_block",
    "q_chunk", "fhd_threads_per_block", "fhd_chunk", "lambda", "iterations", "final_residual", "q_ms", "q_fft_ms",
    "fhd_ms", "mu_ms", "solver_ms", "recon_ms",
    "q_pairs", "fhd_pairs", "rel_l2_err", "max_rel_err",
    // GPU: each variant's untimed first evaluation against FP64 at the check points (checked before timing)
    "check_points", "q_check_rel_l2", "fhd_check_rel_l2"};

/// The CSV columns of `kirk_hwu reconstruct --history`: one row per conjugate-gradient iteration.
const std::vector<std::string> history_columns = {"experiment", "device", "size", "q_variant", "iteration", "residual",
                                                  "quadratic"};

/// Three slices of the real part of an N₁³ image: xy at z = −1/8 of the field of view (the plane of the
/// phantom's small ellipsoids), xz at y = 0 and yz at x = 0.
std::vector<float> central_slices(const std::vector<double>& real, int g) {
    std::vector<float> out;
    const auto at = [&](int i, int j, int l) {
        return static_cast<float>(real[i + static_cast<std::size_t>(g) * (j + static_cast<std::size_t>(g) * l)]);
    };
    for (int j = 0; j < g; ++j)
        for (int i = 0; i < g; ++i) out.push_back(at(i, j, g / 2 - g / 8));
    for (int l = 0; l < g; ++l)
        for (int i = 0; i < g; ++i) out.push_back(at(i, g / 2, l));
    for (int l = 0; l < g; ++l)
        for (int j = 0; j < g; ++j) out.push_back(at(g / 2, j, l));
    return out;
}

/// A rough rate of the CPU's FP64 Q and F^H d sums [pairs per second and thread], for the estimate (measured
/// as kirk_hwu cpu's loops on a 2-core x86 development machine; another CPU differs).
constexpr double rough_pairs_per_second = 4e7;

std::vector<double> real_part(const recon::ComplexVector& v) {
    std::vector<double> out;
    for (const auto& c : v) out.push_back(c.real());
    return out;
}

}  // namespace

int command_reconstruct(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    harness::CommandHelp help;
    help.about = "The iterative (conjugate-gradient) reconstruction the Q and F^H d kernels exist for, and the "
                 "gridding reconstruction beside it, on a phantom whose k-space data are exact: images, errors and "
                 "times per stage.";
    const harness::Options o(
        args,
        {opt::value("--backend", "cpu|cuda", "where Q and F^H d are computed (the CPU in FP64)", "cpu"),
         opt::renamed("--device", harness::OptionKind::value,
                      "--backend cpu|cuda (--device names a GPU's index in every program; --device gpu is --backend cuda)"),
         opt::value("--size", "tiny|small|medium|full", "the phantom's grid and samples (full: on the GPU only, unless "
                                                        "--method gridding)", "small"),
         opt::value("--method", "both|gridding", "both reconstructions, or the gridding one alone", "both"),
         opt::value("--operator", "toeplitz|direct|nufft",
                    "how A^H A is applied (direct: the CPU only; nufft: a different algorithm, the adjoint NUFFT for "
                    "F^H d and its forward/adjoint pair for A^H A, no Q; --backend cuda)",
                    "toeplitz"),
         opt::value("--nufft-tolerance", "T", "--operator nufft: the NUFFT's accuracy, in (0, 1)", "1e-6"),
         opt::value("--nufft-oversampling", "S", "--operator nufft: the grid's oversampling, 1.25 to 4", "2"),
         opt::value("--nufft-width", "W", "--operator nufft: the kernel's width, 2 to 16", "0: from the tolerance"),
         opt::value("--lambda", "L", "the regularisation weight, zero or positive", "1e-2"),
         opt::value("--iterations", "N", "most conjugate-gradient iterations", "30"),
         opt::value("--tolerance", "T", "stop when the relative residual is at most T (0: run every iteration)", "1e-6"),
         opt::value("--threads", "N", "CPU threads", "all cores"),
         opt::value("--q-variant", "NAME", "the Q kernel ('kirk_hwu variants' lists them; --backend cuda)", "the "
                                                                                                          "pipeline's"),
         opt::value("--fhd-variant", "NAME", "the F^H d kernel (--backend cuda)", "the pipeline's"),
         opt::value("--q-threads-per-block", "N", "threads per block of the Q kernel (--backend cuda)", "0: the variant's"),
         opt::value("--q-chunk", "N", "samples per chunk of the Q kernel (--backend cuda)", "0: the variant's"),
         opt::value("--fhd-threads-per-block", "N", "threads per block of the F^H d kernel (--backend cuda)",
                    "0: the variant's"),
         opt::value("--fhd-chunk", "N", "samples per chunk of the F^H d kernel (--backend cuda)", "0: the variant's"),
         opt::value("--check-points", "N", "voxels at which Q and F^H d are checked against FP64 before they are timed "
                                           "(--backend cuda)", "256"),
         opt::csv("one row per reconstruction (iterative, gridding)"),
         opt::value("--history", "FILE", "append one row per conjugate-gradient iteration to the CSV file FILE", "none"),
         opt::value("--out", "DIR", "write three central slices of each image there as .npy files", "none"),
         opt::value("--label", "NAME", "the images' file-name prefix", "cpu or gpu"),
         opt::value("--experiment", "NAME", "the experiment's name written in the CSVs", "reconstruct")},
        "kirk_hwu reconstruct", help);
    // The backend; the CSV's device column keeps the names it has always had (cpu, gpu).
    const std::string device = o.choice("--backend", {"cpu", "cuda"}, "cpu") == "cuda" ? "gpu" : "cpu";
    const std::string size_text = o.choice("--size", {"tiny", "small", "medium", "full"}, "small");
    recon::ReconSettings settings;
    settings.lambda = o.real("--lambda", 1e-2);
    if (settings.lambda < 0) throw o.error("--lambda", "must be zero or positive");
    settings.cg.max_iterations = static_cast<int>(o.integer("--iterations", 30, 1, 100000));
    settings.cg.tolerance = o.real("--tolerance", 1e-6);
    if (settings.cg.tolerance < 0) throw o.error("--tolerance", "must be zero or positive");
    settings.threads = static_cast<int>(o.integer("--threads", std::max(1u, std::thread::hardware_concurrency()), 1, 4096));
    const std::string op = o.choice("--operator", {"toeplitz", "direct", "nufft"}, "toeplitz");
    settings.direct = op == "direct";
    // A different algorithm: the adjoint NUFFT for F^H d and its forward/adjoint pair for AᴴA (no Q).
    settings.use_nufft = op == "nufft";
    settings.nufft.tolerance = o.real("--nufft-tolerance", 1e-6);
    if (!(settings.nufft.tolerance > 0 && settings.nufft.tolerance < 1)) throw o.error("--nufft-tolerance", "must lie in (0, 1)");
    settings.nufft.oversampling = o.real("--nufft-oversampling", 2.0);
    if (!(settings.nufft.oversampling >= 1.25 && settings.nufft.oversampling <= 4))
        throw o.error("--nufft-oversampling", "must lie in [1.25, 4]");
    settings.nufft.width = static_cast<int>(o.integer("--nufft-width", 0, 0, 16));
    if (settings.nufft.width == 1) throw o.error("--nufft-width", "must be 0 (from the tolerance) or from 2 to 16");
    for (const char* nufft_only : {"--nufft-tolerance", "--nufft-oversampling", "--nufft-width"})
        if (!settings.use_nufft && o.has(nufft_only)) throw o.error(nufft_only, "applies to --operator nufft only");
    recon::GpuChoice choice;
    choice.q_variant = o.text("--q-variant", choice.q_variant);
    choice.fhd_variant = o.text("--fhd-variant", choice.fhd_variant);
    choice.q_threads_per_block = static_cast<int>(o.integer("--q-threads-per-block", 0, 0, 1024));
    choice.q_chunk = static_cast<int>(o.integer("--q-chunk", 0, 0, 1 << 20));
    choice.fhd_threads_per_block = static_cast<int>(o.integer("--fhd-threads-per-block", 0, 0, 1024));
    choice.fhd_chunk = static_cast<int>(o.integer("--fhd-chunk", 0, 0, 1 << 20));
    choice.check_points = static_cast<std::size_t>(o.integer("--check-points", 256, 1, 1 << 20));
    settings.iterative = o.choice("--method", {"both", "gridding"}, "both") == "both";
    const Size size = parse_size(size_text);
    if (device == "cpu" && size == Size::full && settings.iterative)
        throw o.error("--size", "full with the iterative solve (Q over 256³ voxels × 10⁵ samples) is for --backend cuda; "
                                "the CPU takes tiny, small or medium, or full with --method gridding");
    if (device == "gpu" && settings.direct)
        throw o.error("--operator", "direct is CPU only; the GPU applies AᴴA through Toeplitz or the NUFFT");
    if (settings.use_nufft) {
        try {  // a grid the NUFFT cannot run fails here, before any work
            (void)recon::nufft_grid(recon::recon_shape(parse_size(size_text)).grid, settings.nufft);
        } catch (const std::invalid_argument& e) {
            throw o.error(o.has("--nufft-width") ? "--nufft-width" : "--nufft-tolerance", e.what());
        }
    }
    for (const char* gpu_only : {"--q-variant", "--fhd-variant", "--q-threads-per-block", "--q-chunk",
                                 "--fhd-threads-per-block", "--fhd-chunk", "--check-points"})
        if (device == "cpu" && o.has(gpu_only))
            throw o.error(gpu_only, "applies to --backend cuda; the CPU computes Q and F^H d in FP64");
    const std::string label = o.text("--label", device);
    const std::string experiment = o.text("--experiment", "reconstruct");
    const std::string out_dir = o.text("--out", "");
    std::vector<std::string> images = {"phantom", "gridding"};
    if (settings.iterative) images.push_back("iterative");
    // Every output path checked before the work.
    if (!out_dir.empty())
        for (const auto& name : images) harness::check_output_path(out_dir + "/" + label + "_" + name + ".npy");
    std::unique_ptr<harness::CsvAppender> csv, history;
    {
        std::vector<harness::NamedPath> outputs;
        for (const char* option : {"--csv", "--history"})
            if (o.has(option)) outputs.push_back({option, o.text(option)});
        harness::check_outputs("kirk_hwu reconstruct", {}, outputs);
    }
#if defined(KIRK_HWU_WITH_CUDA)
    if (device == "gpu") harness::require_gpu();  // before the phantom's data are made on the host
#endif
    if (o.has("--csv")) csv = std::make_unique<harness::CsvAppender>(o.text("--csv"), reconstruct_columns);
    if (o.has("--history")) history = std::make_unique<harness::CsvAppender>(o.text("--history"), history_columns);

    const recon::ReconShape shape = recon::recon_shape(size);
    if (device == "cpu" && settings.iterative) {
        // What the CPU's part will cost, before the phantom's data are made: Q over the doubled grid (Toeplitz)
        // or A and A^H at every iteration (direct), and F^H d, each a sum over every sample and voxel.
        const double samples = shape.samples(), voxels = std::pow(double(shape.grid), 3);
        const double pairs = samples * voxels +
                             (settings.direct ? 2.0 * samples * voxels * settings.cg.max_iterations : samples * 8 * voxels);
        const double seconds = pairs / (rough_pairs_per_second * settings.threads);
        std::fprintf(stderr,
                     "kirk_hwu reconstruct: about %.3g pair evaluations (%s and F^H d): about %s on %d threads at a "
                     "rough %.0e pairs per second and thread\n",
                     pairs, settings.direct ? "A and A^H at every iteration" : "Q", harness::duration_text(seconds).c_str(),
                     settings.threads, rough_pairs_per_second);
    }
    const recon::ReconProblem problem = recon::make_recon_problem(shape, recon::head_phantom());
    std::printf("reconstruct %s on the %s: %d³ voxels, %zu samples on %d radial spokes, lambda %g\n", size_text.c_str(),
                device.c_str(), shape.grid, problem.samples(), shape.spokes, settings.lambda);
    const recon::ReconOutcome r = device == "cpu" ? recon::reconstruct_cpu(problem, settings)
                                                  : recon::reconstruct_gpu(problem, settings, choice);
    const ErrorStats gridded = recon::image_error(r.gridded, problem.truth);
    std::printf("  gridding   %10.3f ms; error against the phantom: rel L2 %.4g (max %.4g)\n", r.times.gridding_ms,
                gridded.rel_l2, gridded.max_rel);
    const auto n = [](double v) { return harness::csv_number(v); };
    // The NUFFT path has no Q and labels its F^H d by its kernel, grid and tolerance (a different algorithm).
    const std::string nufft_label = settings.use_nufft ? "nufft-kb-w" + std::to_string(r.nufft.width) + "-l" +
                                                             std::to_string(r.nufft.grid) + "-tol" + harness::csv_number(r.nufft.tolerance)
                                                       : "";
    const std::string qv = settings.use_nufft ? "" : device == "cpu" ? "cpu-f64" : choice.q_variant;
    const std::string fv = settings.use_nufft ? nufft_label : device == "cpu" ? "cpu-f64" : choice.fhd_variant;
    const auto gridding_row = [&] {
        csv->row({experiment, device, size_text, std::to_string(shape.grid), std::to_string(problem.samples()), "gridding",
                  "", "", "", "", "", "", "", "0", "", "", "", "", "", "", n(r.times.gridding_ms), "", "", n(gridded.rel_l2),
                  n(gridded.max_rel), "", "", ""});
    };
    // The central slices of each image, as small .npy files.
    const auto write_images = [&](const std::vector<std::vector<double>>& values) {
        if (out_dir.empty()) return;
        for (std::size_t i = 0; i < images.size(); ++i)
            recon::write_npy(out_dir + "/" + label + "_" + images[i] + ".npy", central_slices(values[i], shape.grid),
                             {3, static_cast<std::size_t>(shape.grid), static_cast<std::size_t>(shape.grid)});
    };
    if (!settings.iterative) {
        write_images({problem.truth, real_part(r.gridded)});
        if (csv) gridding_row();
        return 0;
    }
    const ErrorStats iterative = recon::image_error(r.iterative, problem.truth);
    const ErrorStats between = compare(recon::split(r.iterative), recon::split(r.gridded));
    const int iterations = static_cast<int>(r.cg.history.size());
    const double final_residual = iterations ? r.cg.history.back().residual : 0.0;
    if (settings.use_nufft)
        std::printf("  NUFFT      Kaiser-Bessel kernel %d cells wide, grid %d³ (oversampling %.3g), tolerance %.3g; no Q\n",
                    r.nufft.width, r.nufft.grid, r.nufft.sigma(), r.nufft.tolerance);
    std::printf("  Q          %10.3f ms (%.3g pairs, %.3g pairs/s)%s\n", r.times.q_ms, r.q_pairs,
                r.times.q_ms > 0 ? r.q_pairs / (r.times.q_ms / 1e3) : 0.0,
                settings.direct ? " (not used: direct AᴴA)" : settings.use_nufft ? " (not used: the NUFFT pair)" : "");
    std::printf("  Q spectrum %10.3f ms\n", r.times.q_fft_ms);
    std::printf("  F^H d      %10.3f ms (%.3g pairs, %.3g pairs/s)\n", r.times.fhd_ms, r.fhd_pairs, r.fhd_pairs / (r.times.fhd_ms / 1e3));
    if (device == "gpu") std::printf("  mu kernel  %10.3f ms (loop fission: F^H d's weights, in the upload)\n", r.times.mu_ms);
    if (device == "gpu")
        std::printf("  checked before timing at %zu voxels: Q rel L2 %.3g, F^H d rel L2 %.3g against FP64 (tolerances %.3g, %.3g)\n",
                    r.q_check.points, r.q_check.rel_l2, r.fhd_check.rel_l2, r.q_check.tolerance, r.fhd_check.tolerance);
    std::printf("  solver     %10.3f ms (%d iterations, relative residual %.3g)\n", r.times.solver_ms, iterations, final_residual);
    std::printf("  recon      %10.3f ms (F^H d + solver)\n", r.times.recon_ms());
    std::printf("error against the phantom: iterative rel L2 %.4g (max %.4g), gridding rel L2 %.4g (max %.4g); "
                "iterative against gridding rel L2 %.4g\n",
                iterative.rel_l2, iterative.max_rel, gridded.rel_l2, gridded.max_rel, between.rel_l2);
    write_images({problem.truth, real_part(r.gridded), real_part(r.iterative)});
    if (csv) {
        const auto text = [](int v) { return std::to_string(v); };
        csv->row({experiment, device, size_text, std::to_string(shape.grid), std::to_string(problem.samples()),
                  settings.direct ? "iterative-direct" : settings.use_nufft ? "iterative-nufft" : "iterative", qv, fv, text(choice.q_threads_per_block),
                  text(choice.q_chunk), text(choice.fhd_threads_per_block), text(choice.fhd_chunk), n(settings.lambda),
                  std::to_string(iterations), n(final_residual),
                  // The NUFFT operator forms no Q and no Toeplitz spectrum: empty, as the gridding row's.
                  settings.use_nufft ? "" : n(r.times.q_ms), settings.use_nufft ? "" : n(r.times.q_fft_ms), n(r.times.fhd_ms),
                  device == "gpu" ? n(r.times.mu_ms) : "", n(r.times.solver_ms), n(r.times.recon_ms()), n(r.q_pairs), n(r.fhd_pairs), n(iterative.rel_l2),
                  n(iterative.max_rel), device == "gpu" ? std::to_string(r.q_check.points) : "",
                  device == "gpu" ? n(r.q_check.rel_l2) : "", device == "gpu" ? n(r.fhd_check.rel_l2) : ""});
        gridding_row();
    }
    if (history)
        for (const auto& h : r.cg.history)
            history->row({experiment, device, size_text, settings.use_nufft ? fv : qv, std::to_string(h.iteration), n(h.residual),
                          n(h.quadratic)});
    return 0;
}

}  // namespace kirk_hwu::app
