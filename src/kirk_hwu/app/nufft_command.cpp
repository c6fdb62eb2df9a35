// kirk_hwu nufft: the reconstruction's F^H d by the direct sums of the documents and by the non-uniform FFT (a
// different algorithm, its error against the FP64 direct sum measured and controlled), on the GPU, in one run:
// the FP64 direct sum (the reference), the study's fastest direct kernel, and the NUFFT's adjoint, forward and
// normal operator at each requested accuracy and oversampling, each checked before it is timed; optionally the
// whole iterative reconstruction with each; and the inputs a peer NUFFT needs to be timed on the same trajectory
// and grid (experiments/peer/finufft/run_cufinufft.py).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "gpu_variants.hpp"
#include "harness/atomic_file.hpp"
#include "harness/check.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/csv.hpp"
#include "harness/device_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "kirk_hwu/app/commands.hpp"
#include "kirk_hwu/pair_math.hpp"
#include "kirk_hwu/recon/npy.hpp"
#include "kirk_hwu/recon/nufft.hpp"
#include "kirk_hwu/recon/pipeline.hpp"
#include "kirk_hwu/reference.hpp"
#include "nufft_gpu.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu nufft` (and of the peer's runner, which appends to the same file): one row per
/// timed sample of one implementation and operation.
const std::vector<std::string> nufft_columns = harness::with_timing_columns(
    {"experiment", "implementation", "variant", "device", "size", "grid", "kspace_samples", "operation", "tolerance",
     "oversampling", "width", "fft_grid", "sample", "ms", "rel_l2_err", "checked", "valid"});

/// The variant whose FP64 sums are the reference, and the study's fastest direct F^H d.
constexpr const char* reference_variant = "fhd-global-regs-libm-u1-f64";
constexpr const char* fastest_variant = "fhd-shared-regs-sfu-u4-f32";

/// Parses a comma-separated list of numbers for @p name (OptionError naming it otherwise).
std::vector<double> numbers(const harness::Options& o, const std::string& name, const std::string& fallback) {
    std::vector<double> out;
    const std::string text = o.text(name, fallback);
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !std::isfinite(v)) throw o.error(name, "expected numbers separated by commas, got '" + item + "'");
        out.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

double relative_l2(const std::vector<std::complex<double>>& got, const std::vector<std::complex<double>>& ref) {
    double d = 0, r = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) d += std::norm(got[i] - ref[i]), r += std::norm(ref[i]);
    return std::sqrt(d / r);
}

std::vector<std::complex<double>> download(const double2* d, std::size_t n) {
    std::vector<std::complex<double>> out(n);
    harness::check(cudaMemcpy(out.data(), d, sizeof(double2) * n, cudaMemcpyDeviceToHost), "copy a result back");
    return out;
}

}  // namespace

int command_nufft(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 5;
    defaults.stop.max_samples = 20;
    defaults.stop.time_limit_s = 2.0;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--size", "tiny|small|medium|full", "the reconstruction's size", "full"),
        opt::value("--tolerances", "LIST", "comma-separated NUFFT accuracies", "1e-3,1e-6,1e-9"),
        opt::value("--widths", "LIST", "comma-separated kernel widths (2 to 16) instead of tolerances", "none"),
        opt::value("--oversampling", "LIST", "comma-separated grid oversampling factors", "2"),
        opt::flag("--reconstruct", "also run the whole iterative reconstruction with each tolerance"),
        opt::value("--lambda", "L", "the reconstruction's regularisation weight", "1e-2"),
        opt::value("--iterations", "N", "conjugate-gradient iterations, all run", "30"),
        opt::value("--check-samples", "N", "samples at which the forward NUFFT is checked", "256"),
        opt::value("--threads", "N", "CPU threads of the FP64 references", "all cores"),
        opt::value("--export", "DIR", "write the inputs a peer NUFFT needs (.npy files and problem.json) there", "none"),
        opt::required("--csv", "FILE", "append one row per timed sample (- for standard output)"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "nufft")};
    for (auto& s : harness::measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about = "F^H d by the direct sums and by the non-uniform FFT (a different algorithm) at each accuracy on "
                 "the GPU, each checked against the FP64 direct sum before it is timed; optionally the whole "
                 "reconstruction with each, and the inputs a peer NUFFT needs to be timed on the same trajectory.";
    const harness::Options o(args, specs, "kirk_hwu nufft", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "kirk_hwu nufft", measure, "one F^H d (or NUFFT operation), CUDA events"))
        return 0;
    const std::string size_text = o.choice("--size", {"tiny", "small", "medium", "full"}, "full");
    const std::vector<double> sigmas = numbers(o, "--oversampling", "2");
    const bool by_width = o.has("--widths");
    if (by_width && o.has("--tolerances")) throw o.error("--widths", "give kernel widths or tolerances, not both");
    const std::vector<double> accuracies = by_width ? numbers(o, "--widths", "") : numbers(o, "--tolerances", "1e-3,1e-6,1e-9");
    const bool reconstruct = o.has("--reconstruct");
    if (reconstruct && by_width) throw o.error("--reconstruct", "reconstructs at tolerances (--tolerances), not at given widths");
    recon::ReconSettings settings;
    settings.lambda = o.real("--lambda", 1e-2);
    if (settings.lambda < 0) throw o.error("--lambda", "must be zero or positive");
    settings.cg.max_iterations = static_cast<int>(o.integer("--iterations", 30, 1, 100000));
    settings.cg.tolerance = 0;  // every iteration, the same number on every path
    settings.threads = static_cast<int>(o.integer("--threads", std::max(1u, std::thread::hardware_concurrency()), 1, 4096));
    const auto check_samples = static_cast<std::size_t>(o.integer("--check-samples", 256, 1, 1 << 20));
    const std::string csv_path = o.require("--csv");
    const std::string export_dir = o.text("--export", "");
    harness::check_outputs("kirk_hwu nufft", {}, {{"--csv", csv_path}});
    const std::vector<std::string> exported = {"kx", "ky", "kz", "mu", "weights", "fhd_direct", "truth", "check_samples",
                                               "forward_reference"};
    if (!export_dir.empty()) {
        for (const auto& name : exported) harness::check_output_path(export_dir + "/" + name + ".npy");
        harness::check_output_path(export_dir + "/problem.json");
    }
    const std::string experiment = o.text("--experiment", "nufft");
    // Every grid first: a combination the NUFFT cannot run fails here, naming its option, before any work.
    const recon::ReconShape shape = recon::recon_shape(parse_size(size_text));
    std::vector<recon::NufftGrid> grids;
    for (double sigma : sigmas)
        for (double a : accuracies) {
            recon::NufftSettings ns{by_width ? 1e-6 : a, sigma, by_width ? static_cast<int>(a) : 0};
            if (by_width && (a != std::floor(a) || a < 2 || a > 16)) throw o.error("--widths", "expected whole widths from 2 to 16");
            try {
                grids.push_back(recon::nufft_grid(shape.grid, ns));
            } catch (const std::invalid_argument& e) {
                throw o.error(by_width ? "--widths" : "--tolerances", e.what());
            }
        }

    const recon::ReconProblem problem = recon::make_recon_problem(shape, recon::head_phantom());
    const MriInput& in = problem.fhd;
    const std::size_t n = problem.voxels(), m = problem.samples();
    std::printf("kirk_hwu nufft %s: %d³ voxels, %zu samples; %zu NUFFT configurations%s; the reference first (the FP64 "
                "direct sum, about %.2g pair evaluations)\n",
                size_text.c_str(), shape.grid, m, grids.size(), reconstruct ? " and a reconstruction with each" : "",
                static_cast<double>(n) * m);
    // Host inputs: k in cycles per field of view, μ = conj(φ) d', the density weights |φ|², and the phantom as
    // the forward's test image; the forward's reference at spread samples by the direct sum on the CPU.
    std::vector<double> kx(m), ky(m), kz(m), w(m);
    std::vector<std::complex<double>> mu(m), image(n);
    for (std::size_t j = 0; j < m; ++j) {
        kx[j] = in.kx[j], ky[j] = in.ky[j], kz[j] = in.kz[j];
        w[j] = static_cast<double>(in.phi_r[j]) * in.phi_r[j] + static_cast<double>(in.phi_i[j]) * in.phi_i[j];
        mu[j] = {mu_real<double>(in.phi_r[j], in.phi_i[j], in.d_r[j], in.d_i[j]), mu_imag<double>(in.phi_r[j], in.phi_i[j], in.d_r[j], in.d_i[j])};
    }
    for (std::size_t v = 0; v < n; ++v) image[v] = problem.truth[v];
    const std::vector<std::size_t> checked_samples = spread_subset(m, check_samples);
    MriInput at_checked = in;  // the checked samples alone, with φ = 1: the forward's sums themselves
    at_checked.kx.clear(), at_checked.ky.clear(), at_checked.kz.clear();
    at_checked.phi_r.assign(checked_samples.size(), 1.0f), at_checked.phi_i.assign(checked_samples.size(), 0.0f);
    at_checked.d_r.assign(checked_samples.size(), 0.0f), at_checked.d_i.assign(checked_samples.size(), 0.0f);
    for (std::size_t j : checked_samples) at_checked.kx.push_back(in.kx[j]), at_checked.ky.push_back(in.ky[j]), at_checked.kz.push_back(in.kz[j]);
    const std::vector<std::complex<double>> forward_reference = recon::forward_direct(at_checked, image, settings.threads);
    const std::vector<std::size_t> check_voxels = spread_subset(n, 256);
    const std::vector<double> cpu_reference = mri_reference(in, MriOutput::fhd, check_voxels, settings.threads);

    harness::ClockMonitor monitor(harness::current_pci_bus_id());
    harness::Stream stream;
    harness::CsvAppender csv(csv_path, nufft_columns);
    const auto n_text = [](double v) { return harness::csv_number(v); };
    int failures = 0;
    const auto record = [&](const std::string& implementation, const std::string& variant, const std::string& operation,
                            double tolerance, double sigma, int width, int fft_grid, const harness::Measurement& meas,
                            double err, const std::string& checked, bool valid) {
        for (std::size_t r = 0; r < meas.samples.size(); ++r)
            csv.row(harness::with_timing_values(
                {experiment, implementation, variant, "gpu", size_text, std::to_string(shape.grid), std::to_string(m), operation,
                 tolerance > 0 ? n_text(tolerance) : "", sigma > 0 ? n_text(sigma) : "", width ? std::to_string(width) : "",
                 fft_grid ? std::to_string(fft_grid) : "", std::to_string(r), n_text(meas.samples[r].ms), n_text(err), checked,
                 valid ? "true" : "false"},
                meas, r));
        std::printf("%-8s %-30s %-11s %9.4g ms median  rel L2 %.3g  %s%s\n", implementation.c_str(), variant.c_str(),
                    operation.c_str(), meas.summary().median, err, checked.c_str(), valid ? "" : "  INVALID");
        if (!valid) ++failures;
    };

    // [nufft-reference-begin]
    // The reference: the FP64 direct sum on the GPU (held to the CPU's FP64 sums at 256 voxels), then the
    // study's fastest direct kernel against it; both timed.
    gpu::MriDevice device(in, MriOutput::fhd);
    std::vector<std::complex<double>> reference(n);
    for (const char* name : {reference_variant, fastest_variant}) {
        const gpu::Variant& v = gpu::variants().find(name);
        v.mri(device, {}, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "run the direct sum");
        const std::vector<double> all = device.download({}, v.fp64);
        std::vector<std::complex<double>> got(n);
        for (std::size_t i = 0; i < n; ++i) got[i] = {all[i], all[n + i]};
        std::vector<double> at_points;
        for (std::size_t i : check_voxels) at_points.push_back(all[i]);
        for (std::size_t i : check_voxels) at_points.push_back(all[n + i]);
        const double cpu_err = compare(cpu_reference, at_points).rel_l2;
        const bool is_reference = std::string(name) == reference_variant;
        if (is_reference) reference = got;
        const double err = is_reference ? cpu_err : relative_l2(got, reference);
        const bool valid = cpu_err <= v.tolerance;
        const harness::Measurement meas = harness::measure(stream.get(), measure, monitor, [&] { v.mri(device, {}, stream.get()); });
        record("direct", name, "adjoint", v.tolerance, 0, 0, 0, meas, err,
               is_reference ? "against the CPU's FP64 sums at 256 voxels" : "against the FP64 direct sum, every voxel", valid);
    }
    // [nufft-reference-end]

    harness::DeviceMemory memory;
    const double2* mu_device = memory.upload(std::vector<double2>(reinterpret_cast<const double2*>(mu.data()),
                                                                  reinterpret_cast<const double2*>(mu.data()) + m),
                                             "upload the density-compensated data");
    const double2* image_device = memory.upload(std::vector<double2>(reinterpret_cast<const double2*>(image.data()),
                                                                     reinterpret_cast<const double2*>(image.data()) + n),
                                                "upload the forward's test image");
    const double* w_device = memory.upload(w, "upload the density weights");
    double2* image_out = memory.allocate<double2>(n, "allocate the NUFFT's image");
    double2* samples_out = memory.allocate<double2>(m, "allocate the NUFFT's samples");

    // [nufft-sweep-begin]
    for (const recon::NufftGrid& grid : grids) {
        gpu::NufftDevice op(grid, kx, ky, kz, stream.get());
        const std::string variant = "nufft-kb";
        // Checked first: the adjoint against the FP64 direct sum at every voxel, the forward against the CPU's
        // direct sums at the checked samples; within the tolerance when one was asked for.
        op.adjoint(mu_device, image_out, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "run the checked adjoint");
        const double adjoint_err = relative_l2(download(image_out, n), reference);
        op.forward(image_device, samples_out, nullptr, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "run the checked forward");
        const std::vector<std::complex<double>> all_samples = download(samples_out, m);
        std::vector<std::complex<double>> at_samples;
        for (std::size_t j : checked_samples) at_samples.push_back(all_samples[j]);
        const double forward_err = relative_l2(at_samples, forward_reference);
        const double tolerance = grid.tolerance;
        const bool adjoint_ok = tolerance == 0 || adjoint_err <= tolerance;
        const bool forward_ok = tolerance == 0 || forward_err <= tolerance;
        const std::string against = tolerance > 0 ? "within its tolerance of " : "measured against ";
        record("ours", variant, "adjoint", tolerance, grid.sigma(), grid.width, grid.grid,
               harness::measure(stream.get(), measure, monitor, [&] { op.adjoint(mu_device, image_out, stream.get()); }),
               adjoint_err, against + "the FP64 direct sum, every voxel", adjoint_ok);
        record("ours", variant, "forward", tolerance, grid.sigma(), grid.width, grid.grid,
               harness::measure(stream.get(), measure, monitor, [&] { op.forward(image_device, samples_out, nullptr, stream.get()); }),
               forward_err, against + "the CPU's direct sums at " + std::to_string(checked_samples.size()) + " samples", forward_ok);
        // The normal operator of the solve, T₁ W T₂: one forward and one adjoint per iteration.
        record("ours", variant, "normal", tolerance, grid.sigma(), grid.width, grid.grid,
               harness::measure(stream.get(), measure, monitor,
                                [&] {
                                    op.forward(image_device, samples_out, w_device, stream.get());
                                    op.adjoint(samples_out, image_out, stream.get());
                                }),
               std::max(adjoint_err, forward_err), "its parts' errors (the larger)", adjoint_ok && forward_ok);
    }
    // [nufft-sweep-end]

    if (reconstruct) {
        // The whole reconstruction (F^H d + 30 conjugate-gradient iterations) with the fastest direct kernels
        // (Toeplitz) and with the NUFFT at each tolerance; the error is the image's against the phantom.
        const auto one_run = [&](const std::string& implementation, const std::string& variant, const recon::ReconSettings& s,
                                 double tolerance, double sigma, int width, int fft_grid) {
            const recon::ReconOutcome r = recon::reconstruct_gpu(problem, s, recon::GpuChoice{});
            harness::Measurement meas;
            meas.samples.push_back({r.times.recon_ms(), {}, 0});
            meas.stop_reason = "max_samples";
            record(implementation, variant, "reconstruct", tolerance, sigma, width, fft_grid, meas,
                   recon::image_error(r.iterative, problem.truth).rel_l2,
                   "image against the phantom; F^H d checked against FP64 before timing (rel L2 " +
                       harness::csv_number(r.fhd_check.rel_l2) + ")",
                   true);
        };
        recon::ReconSettings direct = settings;
        one_run("direct", std::string("fastest: ") + fastest_variant, direct, 0, 0, 0, 0);
        for (const recon::NufftGrid& grid : grids) {
            recon::ReconSettings s = settings;
            s.use_nufft = true;
            s.nufft = {grid.tolerance, grid.sigma(), 0};
            one_run("ours", "nufft-kb", s, grid.tolerance, grid.sigma(), grid.width, grid.grid);
        }
    }

    if (!export_dir.empty()) {
        // [nufft-export-begin]
        // What a peer NUFFT needs to be timed on the same trajectory and grid: the positions (cycles per field of
        // view), the coefficients μ and weights |φ|², the FP64 direct F^H d, the phantom, the forward's checked
        // samples and their direct sums; problem.json says the conventions.
        const std::vector<std::size_t> one = {m}, cube = {static_cast<std::size_t>(shape.grid), static_cast<std::size_t>(shape.grid),
                                                           static_cast<std::size_t>(shape.grid)};
        recon::write_npy(export_dir + "/kx.npy", kx, one);
        recon::write_npy(export_dir + "/ky.npy", ky, one);
        recon::write_npy(export_dir + "/kz.npy", kz, one);
        recon::write_npy(export_dir + "/mu.npy", mu, one);
        recon::write_npy(export_dir + "/weights.npy", w, one);
        recon::write_npy(export_dir + "/fhd_direct.npy", reference, cube);
        recon::write_npy(export_dir + "/truth.npy", problem.truth, cube);
        recon::write_npy(export_dir + "/check_samples.npy", std::vector<long long>(checked_samples.begin(), checked_samples.end()),
                         {checked_samples.size()});
        recon::write_npy(export_dir + "/forward_reference.npy", forward_reference, {checked_samples.size()});
        harness::write_file_atomically(export_dir + "/problem.json", [&](std::ostream& js) {
        js << "{\"size\": \"" << size_text << "\", \"grid\": " << shape.grid << ", \"samples\": " << m
           << ", \"lambda\": " << harness::csv_number(settings.lambda) << ", \"iterations\": " << settings.cg.max_iterations
           << ", \"image\": \"index i + N (j + N l) (C order [l][j][i]), position ((i, j, l) - N/2) / N\""
           << ", \"adjoint\": \"f_n = sum_m mu_m exp(+2 pi i k_m . x_n)\", \"forward\": \"c_m = sum_n f_n exp(-2 pi i k_m . x_n)\""
           << ", \"normal\": \"T1(weights * T2(x)) + lambda R x, R the first differences' Laplacian without wrap-around\"}\n";
        });
        // [nufft-export-end]
        std::printf("exported the peer's inputs to %s\n", export_dir.c_str());
    }
    return failures ? 1 : 0;
}

}  // namespace kirk_hwu::app
