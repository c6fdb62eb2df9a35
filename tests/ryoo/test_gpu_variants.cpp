// Every GPU variant against the double-precision CPU product, at sizes that are and are not multiples of
// the variants' tiles (the host pads), and SAXPY exactly. Without a GPU each test skips with a message.
// With RYOO_GPU_RESULTS set to a folder, every comparison is written there as gpu_correctness.csv.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "harness/check.hpp"
#include "harness/csv.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/core/matrix.hpp"
#include "ryoo/core/product_check.hpp"
#include "ryoo/point_math.hpp"
#include "ryoo/variants.hpp"
#include "gpu_results.hpp"
#include "gpu_support.hpp"

namespace ryoo {
namespace {

using testsupport::have_gpu;

using testing_support::results;

CheckResult run_variant(const GemmVariant& v, const Matrix& a, const Matrix& b, const ProductReference& ref) {
    const GemmLaunch l = v.prepare();
    const int padded = round_up(a.n, v.multiple);
    harness::DeviceMemory m;
    const float* da = m.upload(padded_copy(a, padded), "upload A");
    const float* db = m.upload(padded_copy(b, padded), "upload B");
    float* dc = m.allocate<float>(static_cast<std::size_t>(padded) * padded, "allocate C");
    harness::check(cudaMemset(dc, 0xff, sizeof(float) * padded * padded), "fill C with NaN");
    l.run(da, db, dc, padded, nullptr);
    harness::check(cudaDeviceSynchronize(), "run the variant");
    std::vector<float> c(static_cast<std::size_t>(padded) * padded);
    harness::check(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost), "download C");
    return ref.check(c.data(), padded, single_unit_roundoff, v.input_roundoff);
}

class EveryGemmVariant : public ::testing::TestWithParam<int> {};

TEST_P(EveryGemmVariant, MatchesTheDoublePrecisionProductWithinTheBound) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the GPU variants were NOT checked (run make test-gpu on a GPU)";
    const int n = GetParam();
    const Matrix a = random_matrix(n, 31), b = random_matrix(n, 32);
    const ProductReference ref(a, b, n <= 512 ? 1LL << 20 : 65536);
    for (const auto& v : gemm_variants().entries()) {
        const CheckResult r = run_variant(v, a, b, ref);
        EXPECT_TRUE(r.pass()) << v.name << " at n = " << n << ": " << r.describe();
        if (auto* out = results())
            out->row({v.name, std::to_string(n), std::to_string(r.checked), harness::csv_number(r.worst_ratio),
                      std::to_string(r.failed), r.pass() ? "true" : "false"});
    }
}

// 384: a multiple of every tile but 12 is not needed (384 = 32 * 12); 200: padded by every tiled variant;
// 1024: several register tiles per row; 4096: the benchmark's size, checked on a sample.
INSTANTIATE_TEST_SUITE_P(Sizes, EveryGemmVariant, ::testing::Values(200, 384, 1024, 4096));

TEST(RyooGpu, TheResidencyBallastLeavesExactlyTheImposedBlocks) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    int checked = 0;
    for (const auto& v : gemm_variants().entries()) {
        const GemmLaunch l = v.prepare();
        if (!l.facts.imposed_blocks_per_sm) continue;
        int blocks = 0;
        harness::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, l.facts.function, l.facts.threads_per_block,
                                                                     l.facts.dynamic_smem),
                       "compute the occupancy");
        EXPECT_EQ(blocks, l.facts.imposed_blocks_per_sm) << v.name;
        ++checked;
    }
    EXPECT_EQ(checked, 3);
}

TEST(RyooGpu, StreamKernelsAreExact) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const std::size_t n = (1u << 20) + 12;  // not a multiple of the grid
    const auto x = random_vector(n, 41), y = random_vector(n, 42);
    harness::DeviceMemory m;
    const float* dx = m.upload(x, "upload x");
    float* dy = m.allocate<float>(n, "allocate y");
    std::vector<float> got(n);
    for (const auto& v : stream_variants().entries()) {
        harness::check(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice), "upload y");
        v.run(-0.75f, dx, dy, n, nullptr);
        harness::check(cudaDeviceSynchronize(), "run the stream variant");
        harness::check(cudaMemcpy(got.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost), "download y");
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
            wrong += got[i] != (v.is_saxpy ? saxpy_element(-0.75f, x[i], y[i]) : x[i]);
        EXPECT_EQ(wrong, 0u) << v.name;
        if (auto* out = results())
            out->row({v.name, std::to_string(n), std::to_string(n), wrong ? "inf" : "0", std::to_string(wrong), wrong ? "false" : "true"});
    }
}

}  // namespace
}  // namespace ryoo
