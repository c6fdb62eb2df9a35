// The non-uniform FFT on the GPU (kernels/kirk_hwu/nufft_gpu.hpp) against the CPU's (tested against direct sums in
// test_nufft.cpp): the same grid, kernel and deapodisation, so the two agree to double rounding (the GPU adds its
// spread contributions in another order); and the GPU reconstruction with the NUFFT pair against the CPU's. Without
// a GPU every test skips with a visible message.
#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "gpu_support.hpp"
#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "kirk_hwu/recon/nufft.hpp"
#include "kirk_hwu/recon/pipeline.hpp"
#include "nufft_gpu.hpp"

using namespace kirk_hwu;
using namespace kirk_hwu::recon;
using testsupport::have_gpu;

namespace {

using CV = std::vector<std::complex<double>>;

CV random_vector(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    CV v(n);
    for (auto& x : v) x = {normal(rng), normal(rng)};
    return v;
}

double relative_difference(const CV& a, const CV& b) {
    double d = 0, n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += std::norm(a[i] - b[i]), n += std::norm(b[i]);
    return std::sqrt(d / n);
}

std::vector<double2> to_device_layout(const CV& v) {
    std::vector<double2> out;
    for (const auto& x : v) out.push_back(make_double2(x.real(), x.imag()));
    return out;
}

CV from_device(const double2* d, std::size_t n) {
    std::vector<double2> h(n);
    harness::check(cudaMemcpy(h.data(), d, sizeof(double2) * n, cudaMemcpyDeviceToHost), "copy back");
    CV out;
    for (const auto& x : h) out.emplace_back(x.x, x.y);
    return out;
}

}  // namespace

TEST(GpuNufft, AdjointAndForwardEqualTheCpusToRounding) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the GPU NUFFT NOT checked";
    const int image = 16;
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-image / 2.0, image / 2.0);
    std::vector<double> kx, ky, kz, w;
    for (int m = 0; m < 3000; ++m) kx.push_back(u(rng)), ky.push_back(u(rng)), kz.push_back(u(rng)), w.push_back(0.5 + 0.25 * (m % 3));
    const CV c = random_vector(kx.size(), 4), f = random_vector(static_cast<std::size_t>(image) * image * image, 5);
    for (double sigma : {2.0, 1.25}) {
        const NufftGrid grid = nufft_grid(image, {1e-6, sigma, 0});
        // Both sides in FP64 with different summation orders (atomics, cuFFT against the CPU's FFT): 1e-12 of
        // rounding, multiplied by the deapodisation's range along one axis (max/min of 1/φ̂: about 2.8 at σ = 2,
        // 250 at σ = 1.25, where the image's edge divides by a small φ̂). A wrong kernel, index or factor gives
        // differences of order one, far above either bound.
        const std::vector<double> deapod = nufft_deapodisation(grid);
        const auto [lo, hi] = std::minmax_element(deapod.begin(), deapod.end());
        const double bound = 1e-12 * (*hi / *lo);
        const Nufft cpu(grid, kx, ky, kz);
        harness::Stream stream;
        gpu::NufftDevice gpu(grid, kx, ky, kz, stream.get());
        harness::DeviceMemory mem;
        const double2* c_d = mem.upload(to_device_layout(c), "upload c");
        const double2* f_d = mem.upload(to_device_layout(f), "upload f");
        const double* w_d = mem.upload(w, "upload w");
        double2* image_d = mem.allocate<double2>(f.size(), "allocate the image");
        double2* samples_d = mem.allocate<double2>(c.size(), "allocate the samples");
        gpu.adjoint(c_d, image_d, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "adjoint");
        EXPECT_LT(relative_difference(from_device(image_d, f.size()), cpu.adjoint(c)), bound) << "adjoint, sigma " << sigma;
        gpu.forward(f_d, samples_d, nullptr, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "forward");
        const CV forward = cpu.forward(f);
        EXPECT_LT(relative_difference(from_device(samples_d, c.size()), forward), bound) << "forward, sigma " << sigma;
        gpu.forward(f_d, samples_d, w_d, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "weighted forward");
        CV weighted = forward;
        for (std::size_t m = 0; m < weighted.size(); ++m) weighted[m] *= w[m];
        EXPECT_LT(relative_difference(from_device(samples_d, c.size()), weighted), bound) << "weighted, sigma " << sigma;
    }
}

TEST(GpuNufft, TheReconstructionWithTheNufftPairEqualsTheCpus) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the GPU NUFFT NOT checked";
    const ReconProblem p = make_recon_problem(recon_shape(Size::small), head_phantom());
    ReconSettings s;
    s.cg.max_iterations = 20;
    s.cg.tolerance = 0;
    s.threads = 2;
    s.use_nufft = true;
    s.nufft = {1e-6, 2.0, 0};
    const ReconOutcome cpu = reconstruct_cpu(p, s);
    GpuChoice c;
    c.check_points = 64;
    const ReconOutcome gpu = reconstruct_gpu(p, s, c);
    EXPECT_LT(relative_difference(gpu.iterative, cpu.iterative), 1e-8);
    EXPECT_EQ(gpu.nufft.width, cpu.nufft.width);
    EXPECT_EQ(gpu.fhd_check.points, 64u);
    EXPECT_EQ(gpu.fhd_check.tolerance, 1e-6);
    EXPECT_LE(gpu.fhd_check.rel_l2, 1e-6);
    EXPECT_GT(gpu.fhd_check.rel_l2, 0.0);
    EXPECT_EQ(gpu.times.q_ms, 0.0);  // no Q on this path
}
