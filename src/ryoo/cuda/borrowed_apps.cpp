// The applications of the paper's Table 3 whose kernels this artifact builds elsewhere: matrix
// multiplication (this study's ladder) and MRI-Q, MRI-FHD and CP (the kirk_hwu study's ladders, linked into
// this program). Each command measures what the other application commands measure (app_commands.cpp): a
// single-thread CPU baseline, every named GPU variant checked against a double-precision reference before it
// is timed, and the kernel, the whole application (allocation, uploads, kernels, downloads) and the
// transfers alone. One CSV row per kept sample, kind app_bench of experiments/studies/ryoo.py.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "kirk_hwu/gpu_variants.hpp"
#include "kirk_hwu/reference.hpp"
#include "ryoo/core/matrix.hpp"
#include "ryoo/core/product_check.hpp"
#include "ryoo/cpu/cpu_blas.hpp"
#include "ryoo/cuda/app_run.hpp"
#include "ryoo/variants.hpp"

namespace ryoo::app {
namespace {

using harness::check;

// ---- matrix multiplication ----------------------------------------------------------------------------------

/// The matrix-multiplication variants an application run may name: every kernel of the ladder (a library
/// call has no kernel whose resources Table 3 could report).
std::vector<std::string> gemm_kernel_names() {
    std::vector<std::string> out;
    for (const auto& v : gemm_variants().entries())
        if (v.step != "library") out.push_back(v.name);
    return out;
}

}  // namespace

int command_matmul_app(const Args& args) {
    AppRun run(args, "ryoo matmul-app", {{"--n"}, {"--seed"}, {"--sample"}});
    if (run.help()) {
        run.print_help("ryoo matmul-app [--size small|large] [--n N] [--seed 1] [--sample 65536] [shared options]\n"
                       "  C = A B in single precision as an application (small: n = 256, large: n = 4096): the CPU baseline\n"
                       "  is the optimised CPU BLAS on one thread (the paper compared with an SSE2 library), then each GPU\n"
                       "  variant of the ladder, whose product must pass the double-precision check (every element, or a\n"
                       "  sample) before it is timed. Parts: kernel (the product), application (allocation, upload of A\n"
                       "  and B, the product, download of C), transfer (the uploads and the download). Rates in GFLOP/s\n"
                       "  at 2 n^3 operations.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int n = static_cast<int>(run.options().integer("--n", size == "small" ? 256 : 4096, 16, 16384));
    const auto seed = static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0));
    const long long sample = run.options().integer("--sample", 65536, 4, static_cast<long long>(n) * n);
    const auto names = gemm_kernel_names();
    run.start(names);
    harness::check_host_bytes(run.options(), "--n", 4.0 * 4.0 * n * static_cast<double>(n), "A, B and two products");
    if (!cpu_blas_available())
        throw run.options().error("--cpu-samples", "this build has no CPU BLAS (" + cpu_blas_description() +
                                                       "): the baseline cannot run; install libopenblas-dev and rebuild");
    for (const auto& name : run.variants())
        if (n % gemm_variants().find(name).multiple != 0)
            throw run.options().error("--n", std::to_string(n) + " is not a multiple of " +
                                                 std::to_string(gemm_variants().find(name).multiple) + ", which " + name + " needs");
    run.open("matmul");
    const Matrix a = random_matrix(n, seed), b = random_matrix(n, seed + 1);
    const ProductReference reference(a, b, sample);
    const double flops = 2.0 * n * static_cast<double>(n) * n;
    std::vector<float> c(static_cast<std::size_t>(n) * n);
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] { cpu_sgemm(a.data.data(), b.data.data(), c.data(), n, 1); });
        const CheckResult r = reference.check(c.data(), n);
        if (!r.pass()) run.failed("cpu", "the CPU BLAS product fails the check: " + r.describe());
        // The CPU application is the product alone: its inputs are made before either side is timed.
        const auto application = time_cpu(run, [&] { cpu_sgemm(a.data.data(), b.data.data(), c.data(), n, 1); });
        run.record("cpu", "", "kernel", kernel, flops, "flop", r.pass(), "bound " + harness::csv_number(r.worst_ratio));
        run.record("cpu", "", "application", application, flops, "flop", r.pass(), "bound " + harness::csv_number(r.worst_ratio));
    }
    const std::size_t bytes = c.size() * sizeof(float);
    const cudaStream_t s = run.stream();
    harness::DeviceMemory memory;
    float* da = memory.upload(a.data, "upload A");
    float* db = memory.upload(b.data, "upload B");
    float* dc = memory.allocate<float>(c.size(), "allocate C");
    for (const auto& name : run.variants()) {
        const GemmVariant& v = gemm_variants().find(name);
        GemmLaunch l;
        try {
            l = v.prepare();
        } catch (const std::runtime_error& e) {
            run.failed(name, e.what());
            continue;
        }
        check(cudaMemsetAsync(dc, 0xff, bytes, s), "poison C");
        l.run(da, db, dc, n, s);
        check(cudaMemcpyAsync(c.data(), dc, bytes, cudaMemcpyDeviceToHost, s), "download C");
        check(cudaStreamSynchronize(s), "run the checked product");
        const CheckResult r = reference.check(c.data(), n, single_unit_roundoff, v.input_roundoff);
        if (!r.pass()) {
            run.failed(name, "the product fails the check: " + r.describe());
            continue;
        }
        const std::string checked = "bound " + harness::csv_number(r.worst_ratio);
        if (run.times("kernel"))
            run.record(name, "", "kernel", harness::measure(s, run.gpu(), run.monitor(), [&] { l.run(da, db, dc, n, s); }), flops,
                       "flop", true, checked);
        if (run.times("application")) {
            const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                harness::DeviceMemory own;
                float* ua = own.upload(a.data, "upload A");
                float* ub = own.upload(b.data, "upload B");
                float* uc = own.allocate<float>(c.size(), "allocate C");
                l.run(ua, ub, uc, n, s);
                check(cudaMemcpyAsync(c.data(), uc, bytes, cudaMemcpyDeviceToHost, s), "download C");
                check(cudaStreamSynchronize(s), "finish the product");
            });
            run.record(name, "", "application", m, flops, "flop", true, checked);
        }
        if (run.times("transfer")) {
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(da, a.data.data(), bytes, cudaMemcpyHostToDevice, s), "upload A");
                check(cudaMemcpyAsync(db, b.data.data(), bytes, cudaMemcpyHostToDevice, s), "upload B");
                check(cudaMemcpyAsync(c.data(), dc, bytes, cudaMemcpyDeviceToHost, s), "download C");
            });
            run.record(name, "", "transfer", m, 3.0 * bytes, "B", true, "copies");
        }
    }
    return run.finish();
}

// ---- MRI-Q, MRI-FHD and CP (the kirk_hwu study's kernels) ---------------------------------------------------

namespace {

namespace kh = kirk_hwu;

/// The kirk_hwu variants of @p problem, by name.
std::vector<std::string> names_of(kh::gpu::Problem problem) {
    std::vector<std::string> out;
    for (const auto& v : kh::gpu::variants_of(problem)) out.push_back(v.name);
    return out;
}

/// @p in restricted to its first @p count voxels (every sample kept): the CPU baseline's share of the work.
kh::MriInput first_voxels(const kh::MriInput& in, std::size_t count) {
    kh::MriInput out = in;
    count = std::min(count, in.voxels());
    out.x.resize(count);
    out.y.resize(count);
    out.z.resize(count);
    return out;
}

/// @p in restricted to its first @p rows lattice rows of the first slice (every atom kept).
kh::CoulombInput first_rows(const kh::CoulombInput& in, int rows) {
    kh::CoulombInput out = in;
    out.gz = 1;
    out.gy = std::min(rows, in.gy);
    return out;
}

/// The options of the three borrowed computations.
struct Borrowed {
    std::string command, application, summary;
    kh::gpu::Problem problem;
};

int borrowed_command(const Args& args, const Borrowed& what) {
    AppRun run(args, what.command, {{"--cpu-points"}, {"--check-points"}});
    const bool mri = what.problem != kh::gpu::Problem::coulomb;
    if (run.help()) {
        run.print_help(what.command + " [--size small|large] [--cpu-points N] [--check-points 2048] [shared options]\n  " + what.summary +
                       "\n  The kirk_hwu study's input of that size (small: its tiny input; large: its full input, the\n"
                       "  documents' size) and its GPU variants. The CPU baseline is the documents' single-precision loop on\n"
                       "  one thread over the first --cpu-points " +
                       std::string(mri ? "voxels (default: all when small, 512 when large)"
                                       : "lattice points of the first slice in whole rows\n  (default: all when small, 4096 when large)") +
                       ", every " + (mri ? "sample" : "atom") +
                       " included:\n  its rate is the CPU's rate. Each GPU variant's output must be within the variant's tolerance of\n"
                       "  the FP64 reference at --check-points points before it is timed. Parts: kernel (the computation),\n"
                       "  application (allocation and upload of the input, the kernels, download of the whole output),\n"
                       "  transfer (the input's upload and the output's download). Rates in Gpairs/s.");
        return 0;
    }
    const std::string size_text = run.options().choice("--size", {"small", "large"}, "small");
    const kh::Size size = size_text == "small" ? kh::Size::tiny : kh::Size::full;
    const auto cpu_points = static_cast<std::size_t>(run.options().integer("--cpu-points", size_text == "small" ? 0 : mri ? 512 : 4096, 0, 1LL << 26));
    const auto check_count = static_cast<std::size_t>(run.options().integer("--check-points", 2048, 1, 1 << 20));
    run.start(names_of(what.problem));
    run.open(what.application);
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const kh::MriOutput out = what.problem == kh::gpu::Problem::mri_q ? kh::MriOutput::q : kh::MriOutput::fhd;
    kh::MriInput mri_in;
    kh::CoulombInput dcs_in;
    std::size_t points = 0, terms = 0;
    if (mri) {
        mri_in = kh::make_mri_input(size);
        points = mri_in.voxels();
        terms = mri_in.samples();
    } else {
        dcs_in = kh::make_coulomb_input(size);
        points = dcs_in.points();
        terms = dcs_in.atom_count();
    }
    const double pairs = static_cast<double>(points) * static_cast<double>(terms);
    std::printf("%s: %zu points x %zu terms = %.3g pairs\n", what.application.c_str(), points, terms, pairs);
    const auto check_points = kh::spread_subset(points, check_count);
    const std::vector<double> reference =
        mri ? kh::mri_reference(mri_in, out, check_points, threads) : kh::coulomb_reference(dcs_in, check_points, threads);
    if (run.cpu_samples() > 0) {
        // The CPU's share: the first points (the whole input when small), every term.
        const kh::MriInput mri_part = mri ? (cpu_points ? first_voxels(mri_in, cpu_points) : mri_in) : kh::MriInput{};
        const kh::CoulombInput dcs_part =
            mri ? kh::CoulombInput{} : (cpu_points ? first_rows(dcs_in, static_cast<int>((cpu_points + dcs_in.gx - 1) / dcs_in.gx)) : dcs_in);
        const std::size_t part = mri ? mri_part.voxels() : dcs_part.points();
        std::vector<float> r, i, g;
        const auto compute = [&] {
            if (mri) kh::mri_cpu_scatter(mri_part, out, r, i);
            else kh::coulomb_cpu(dcs_part, g);
        };
        const auto kernel = time_cpu(run, compute);
        // Checked against the FP64 reference at the check points inside the CPU's share.
        std::vector<std::size_t> inside;
        std::vector<double> expected, got;
        for (std::size_t k = 0; k < check_points.size(); ++k)
            if (check_points[k] < part) inside.push_back(k);
        for (const auto k : inside) {
            const std::size_t p = check_points[k];
            expected.push_back(reference[k]);
            got.push_back(mri ? r[p] : g[p]);
            if (mri) {
                expected.push_back(reference[check_points.size() + k]);
                got.push_back(i[p]);
            }
        }
        const kh::ErrorStats e = kh::compare(expected, got);
        const bool ok = !inside.empty() && e.rel_l2 <= 1e-3;
        const std::string checked = inside.empty() ? "not compared" : "rel L2 " + harness::csv_number(e.rel_l2);
        const auto application = time_cpu(run, compute);
        const double work = static_cast<double>(part) * static_cast<double>(terms);
        run.record("cpu", "", "kernel", kernel, work, "pairs", ok || inside.empty(), checked);
        run.record("cpu", "", "application", application, work, "pairs", ok || inside.empty(), checked);
        if (!inside.empty() && !ok) run.failed("cpu", "the CPU baseline is not within 1e-3 of the FP64 reference");
    }
    const cudaStream_t s = run.stream();
    // The device copy the kernel timings reuse; the application builds its own each time.
    std::unique_ptr<kh::gpu::MriDevice> mri_dev;
    std::unique_ptr<kh::gpu::CoulombDevice> dcs_dev;
    // Double-precision arrays only when a named variant computes in double: a float application has none.
    bool with_fp64 = false;
    for (const auto& name : run.variants()) with_fp64 = with_fp64 || kh::gpu::variants().find(name).fp64;
    if (mri) mri_dev = std::make_unique<kh::gpu::MriDevice>(mri_in, out, with_fp64);
    else dcs_dev = std::make_unique<kh::gpu::CoulombDevice>(dcs_in);
    // Bytes of the input and of the output, for the transfer part: what the device copies upload in float
    // (MRI: the voxel positions, the sample coordinates and the seven raw sample arrays of the weight kernel;
    // CP: the atoms and the per-slice atoms) and the whole output.
    const std::size_t in_bytes = mri ? sizeof(float) * (3 * points + 10 * mri_in.samples())
                                     : sizeof(float) * dcs_in.atoms.size() * (1 + static_cast<std::size_t>(dcs_in.gz));
    const std::size_t out_bytes = sizeof(float) * points * (mri ? 2 : 1);
    harness::DeviceMemory scratch;
    std::vector<float> host_in(in_bytes / sizeof(float), 1.0f), host_out(out_bytes / sizeof(float));
    float* d_in = scratch.allocate<float>(host_in.size(), "allocate the transfer buffer of the input");
    float* d_out = scratch.allocate<float>(host_out.size(), "allocate the transfer buffer of the output");
    const kh::gpu::LaunchSettings ls;
    for (const auto& name : run.variants()) {
        const kh::gpu::Variant& v = kh::gpu::variants().find(name);
        const auto compute = [&] {
            if (mri) v.mri(*mri_dev, ls, s);
            else v.coulomb(*dcs_dev, ls, s);
        };
        compute();
        check(cudaStreamSynchronize(s), "run the checked computation");
        const std::vector<double> got = mri ? mri_dev->download(check_points, v.fp64) : dcs_dev->download(check_points);
        const kh::ErrorStats e = kh::compare(reference, got);
        if (!(e.rel_l2 <= v.tolerance && e.max_rel <= v.tolerance)) {
            run.failed(name, "outside its tolerance " + harness::csv_number(v.tolerance) + ": rel L2 " + harness::csv_number(e.rel_l2) +
                                 ", max rel " + harness::csv_number(e.max_rel));
            continue;
        }
        const std::string checked = "rel L2 " + harness::csv_number(e.rel_l2);
        if (run.times("kernel")) run.record(name, "", "kernel", harness::measure(s, run.gpu(), run.monitor(), compute), pairs, "pairs", true, checked);
        if (run.times("application")) {
            const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                if (mri) {
                    kh::gpu::MriDevice d(mri_in, out, with_fp64);
                    v.mri(d, ls, s);
                    check(cudaStreamSynchronize(s), "finish the computation");
                    (void)d.download({}, v.fp64);
                } else {
                    kh::gpu::CoulombDevice d(dcs_in);
                    v.coulomb(d, ls, s);
                    check(cudaStreamSynchronize(s), "finish the computation");
                    (void)d.download({});
                }
            });
            run.record(name, "", "application", m, pairs, "pairs", true, checked);
        }
        if (run.times("transfer")) {
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(d_in, host_in.data(), in_bytes, cudaMemcpyHostToDevice, s), "upload the input");
                check(cudaMemcpyAsync(host_out.data(), d_out, out_bytes, cudaMemcpyDeviceToHost, s), "download the output");
            });
            run.record(name, "", "transfer", m, static_cast<double>(in_bytes + out_bytes), "B", true, "copies");
        }
    }
    return run.finish();
}

}  // namespace

int command_mri_q(const Args& args) {
    return borrowed_command(args, {"ryoo mri-q", "mri-q", "MRI-Q: the matrix Q of a non-Cartesian MRI reconstruction.",
                                   kh::gpu::Problem::mri_q});
}

int command_mri_fhd(const Args& args) {
    return borrowed_command(args, {"ryoo mri-fhd", "mri-fhd", "MRI-FHD: the vector F^H d of the same reconstruction.",
                                   kh::gpu::Problem::mri_fhd});
}

int command_cp(const Args& args) {
    return borrowed_command(args, {"ryoo cp", "cp", "CP: the electric potential of point charges on a lattice (direct Coulomb summation).",
                                   kh::gpu::Problem::coulomb});
}

}  // namespace ryoo::app
