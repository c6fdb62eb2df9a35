// The GPU matrix products of the thesis's chapter 3 (the SDK-style kernel and cuBLAS SGEMM in FP32)
// against the double-precision product, element by element within gamma_n (|A||B|)_ij; sizes that are
// and are not multiples of the tile, and both paths (resident arrays, and allocation with copies).
#include <gtest/gtest.h>

#include <vector>

#include "gpu_support.hpp"
#include "harness/check.hpp"
#include "munch/cpu/matmul.hpp"
#include "munch/matmul.hpp"

using namespace munch;

namespace {

#define REQUIRE_GPU() \
    if (!testsupport::have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the GPU matrix products were NOT checked (run make test-gpu on a GPU)"

}  // namespace

TEST(GpuMatmul, BothProductsWithinTheFloatBoundOfTheDoubleProduct) {
    REQUIRE_GPU();
    harness::Stream stream;
    for (const auto kind : {gpu::MatmulKind::sdk, gpu::MatmulKind::cublas})
        for (std::size_t n : {1u, 15u, 16u, 33u, 128u, 500u}) {
            const auto a = cpu::matmul_input(n, 21), b = cpu::matmul_input(n, 22);
            gpu::DeviceMatmul m(kind, n);
            m.upload(a, b, stream.get());
            m.run(stream.get());
            const auto v = cpu::check_matmul(a, b, m.download(stream.get()), n, 4);
            EXPECT_TRUE(v.valid) << gpu::matmul_name(kind) << " n = " << n << ": " << v.first_failure;
            EXPECT_EQ(v.checked, "all");
            const auto w = cpu::check_matmul(a, b, gpu::matmul_with_transfers(kind, a, b, n, stream.get()), n, 4);
            EXPECT_TRUE(w.valid) << gpu::matmul_name(kind) << " with transfers, n = " << n << ": " << w.first_failure;
        }
}

TEST(GpuMatmul, SmallIntegersAreExact) {
    // Entries in [-8, 8], n = 48: every partial sum is an integer below 2^24, so any order of the sum is
    // exact and both products must equal the CPU's bit for bit.
    REQUIRE_GPU();
    const std::size_t n = 48;
    std::vector<float> a(n * n), b(n * n);
    for (std::size_t i = 0; i < n * n; ++i) {
        a[i] = static_cast<float>(static_cast<int>((i * 5 + 1) % 17) - 8);
        b[i] = static_cast<float>(static_cast<int>((i * 13 + 2) % 17) - 8);
    }
    std::vector<float> cpu_c;
    cpu::matmul_ikj(a, b, cpu_c, n);
    harness::Stream stream;
    for (const auto kind : {gpu::MatmulKind::sdk, gpu::MatmulKind::cublas}) {
        gpu::DeviceMatmul m(kind, n);
        m.upload(a, b, stream.get());
        m.run(stream.get());
        EXPECT_EQ(m.download(stream.get()), cpu_c) << gpu::matmul_name(kind);
    }
}
