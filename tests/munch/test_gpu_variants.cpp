// Every GPU variant against the CPU reference, on sizes that exercise the padding, several filter
// chunks, filters longer than the signal, partial tiles and the direct kernel's chunk sizes and grid steps; and the limits and IEEE kernels.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "harness/check.hpp"
#include "munch/check/reference.hpp"
#include "munch/device_buffer.hpp"
#include "munch/fft_sizes.hpp"
#include "munch/ieee.hpp"
#include "munch/inputs.hpp"
#include "munch/limits.hpp"
#include "munch/variants.hpp"
#include "gpu_support.hpp"

using namespace munch;

namespace {

using testsupport::have_gpu;

#define REQUIRE_GPU() \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the GPU variants were NOT checked (run make test-gpu on a GPU)"

using Size = std::pair<std::size_t, std::size_t>;

const std::vector<Size> convolution_sizes = {{1, 1}, {10, 9}, {1000, 1}, {1000, 99}, {100, 999}, {5000, 999}, {3000, 9000}, {100000, 9}, {20000, 8193},
    // The direct kernel: chunk sizes 1 to 32 taps, several accumulating launches (33, 65), outputs
    // not a multiple of four.
    {1001, 2}, {100, 3}, {7, 5}, {1000, 13}, {3, 17}, {50, 23}, {999, 32}, {4099, 33}, {2050, 65}};
const std::vector<Size> rolling_ball_sizes = {{10, 9}, {1, 1}, {1000, 99}, {100, 999}, {5000, 999}, {20000, 8193}, {100000, 9}};

}  // namespace

TEST(GpuConvolution, EveryVariantEqualsTheCpuReference) {
    REQUIRE_GPU();
    for (const auto& [n, w] : convolution_sizes) {
        const auto m = convolution_signal(n), f = convolution_filter(w);
        const check::ConvolutionReference ref(m, f, 4);
        const double fft_tolerance = fft_error_bound(m, f, fft_size(n + w - 1));
        for (const auto& entry : gpu::convolution_variants()) {
            auto v = entry.make();
            v->prepare(m, f, nullptr);
            v->run(nullptr);
            v->run(nullptr);  // a second run must not accumulate onto the first
            const auto verdict = ref.check(v->result(nullptr), entry.name == "cufft" ? fft_tolerance : 0.0);
            EXPECT_TRUE(verdict.valid) << entry.name << " n=" << n << " w=" << w << ": " << verdict.first_failure;
            EXPECT_EQ(verdict.checked, "all");
        }
    }
}

// The direct kernel over more output groups than one step of its grid covers (an H200 holds at most a
// million or so groups of four at once), so that the grid-stride loop takes several steps. A test of its own:
// the sanitizer runs (filter GpuConvolution.*) keep to the small sizes.
TEST(GpuDirectConvolution, StridesOverItsGrid) {
    REQUIRE_GPU();
    const std::size_t n = 20000003, w = 9;
    const auto m = convolution_signal(n), f = convolution_filter(w);
    const check::ConvolutionReference ref(m, f, 4);
    bool found = false;
    for (const auto& entry : gpu::convolution_variants()) {
        if (entry.name.rfind("direct-", 0) != 0) continue;
        found = true;
        auto v = entry.make();
        v->prepare(m, f, nullptr);
        v->run(nullptr);
        v->run(nullptr);
        const auto verdict = ref.check(v->result(nullptr), 0.0);
        EXPECT_TRUE(verdict.valid) << entry.name << ": " << verdict.first_failure;
        EXPECT_EQ(verdict.checked, "all");
    }
    EXPECT_TRUE(found) << "no direct variant registered";
}

TEST(GpuRollingBall, EveryVariantEqualsTheCpuReferenceExactly) {
    REQUIRE_GPU();
    for (const auto& [n, w] : rolling_ball_sizes) {
        const auto m = baseline_signal(n), ball = ball_profile(w);
        const check::RollingBallReference ref(m, ball, 4);
        for (const auto& entry : gpu::rolling_ball_variants()) {
            auto v = entry.make();
            v->prepare(m, ball, nullptr);
            v->run(nullptr);
            v->run(nullptr);
            const auto verdict = ref.check(v->result(nullptr));
            EXPECT_TRUE(verdict.valid) << entry.name << " n=" << n << " w=" << w << ": " << verdict.first_failure;
        }
    }
}

TEST(GpuLimits, TheStreamCopyCopies) {
    REQUIRE_GPU();
    const auto host = convolution_signal(1 << 20);
    const auto source = gpu::uploaded(host, nullptr);
    gpu::DeviceFloats target(host.size());
    gpu::launch_stream_copy(source.get(), target.get(), host.size(), nullptr);
    EXPECT_EQ(target.download(host.size(), nullptr), host);
}

TEST(GpuLimits, ThePeakKernelsAndTheEmptyKernelRun) {
    REQUIRE_GPU();
    float* f = nullptr;
    double* d = nullptr;
    harness::check(cudaMalloc(&f, sizeof(float)), "allocate");
    harness::check(cudaMalloc(&d, sizeof(double)), "allocate");
    gpu::launch_peak_fp32(4, 100, 1.0f, f, nullptr);
    gpu::launch_peak_fp64(4, 100, 1.0, d, nullptr);
    gpu::launch_empty(dim3(16, 16), dim3(32, 32), nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(f);
    cudaFree(d);
}

TEST(GpuIeee, TheBuildsDifferAsTheirFlagsSay) {
    REQUIRE_GPU();
    gpu::IeeeInputs in;
    for (int i = 1; i <= 4096; ++i) {
        in.a.push_back(std::ldexp(1.0f + static_cast<float>(i) / 4097.0f, i % 50 - 25) * (i % 3 ? 1.0f : -1.0f));
        in.b.push_back(std::ldexp(1.0f + static_cast<float>(i * 7 % 4096) / 4099.0f, i % 40 - 20));
        in.c.push_back(-in.a.back() * in.b.back() * (1.0f + std::ldexp(1.0f, -20)));
        in.denormal.push_back(std::ldexp(1.0f + static_cast<float>(i) / 4097.0f, -130));
    }
    for (const auto& build : gpu::ieee_builds()) {
        const auto out = build.run(in);
        std::size_t div = 0, root = 0, fused = 0, unfused = 0, flushed = 0;
        for (std::size_t i = 0; i < in.a.size(); ++i) {
            div += out.quotient[i] != in.a[i] / in.b[i];
            root += out.root[i] != std::sqrt(std::fabs(in.a[i]));
            fused += out.muladd[i] != std::fma(in.a[i], in.b[i], in.c[i]);
            unfused += out.muladd[i] != in.a[i] * in.b[i] + in.c[i];
            flushed += out.scaled[i] == 0.0f;
        }
        if (build.name == "default") {
            EXPECT_EQ(div, 0u);
            EXPECT_EQ(root, 0u);
            EXPECT_EQ(fused, 0u);  // a*b+c contracted into one fused multiply-add
            EXPECT_GT(unfused, 0u);
            EXPECT_EQ(flushed, 0u);  // denormals kept
        } else if (build.name == "no_fma") {
            EXPECT_EQ(unfused, 0u);
            EXPECT_EQ(flushed, 0u);
        } else if (build.name == "flush_to_zero") {
            EXPECT_EQ(flushed, in.a.size());
        } else if (build.name == "fast_math") {
            EXPECT_EQ(flushed, in.a.size());
            EXPECT_GT(div + root, 0u);  // approximate division and square root
        }
    }
}
