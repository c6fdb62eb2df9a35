// Every RPES variant against the double-precision CPU reference on a small molecule: every J row within the
// stated relative bound. Without a GPU the test skips with a message.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/rpes.hpp"
#include "gpu_support.hpp"

namespace ryoo {
namespace {

TEST(RyooGpuRpes, EveryRowWithinTheBound) {
    if (!testsupport::have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the RPES variants were NOT checked";
    // 3^3 atoms x 3 primitives = 81 primitives, 3321 pairs; and 2^3 x 2 = 16 (136 pairs, one partial block).
    for (const auto& [edge, per_atom] : {std::pair{3, 3}, std::pair{2, 2}}) {
        const RpesPairs pairs = rpes_pairs(rpes_molecule(edge, per_atom, 2.0), 2);
        const RpesPacked packed = rpes_pack(pairs);
        std::vector<int> rows(static_cast<std::size_t>(pairs.size()));
        for (int i = 0; i < pairs.size(); ++i) rows[static_cast<std::size_t>(i)] = i;
        const auto ref = rpes_rows_fp64(pairs, rows);
        set_rpes_table(rpes_fit_table());
        harness::DeviceMemory memory;
        const int m = pairs.size();
        auto* geometry = memory.allocate<float4>(static_cast<std::size_t>(m), "allocate");
        harness::check(cudaMemcpy(geometry, packed.geometry.data(), packed.geometry.size() * 4, cudaMemcpyHostToDevice), "upload");
        const float* k = memory.upload(packed.k, "upload");
        const float* kd = memory.upload(packed.kd, "upload");
        auto* j = memory.allocate<float>(static_cast<std::size_t>(m), "allocate");
        for (const auto& v : rpes_variants().entries()) {
            v.run(geometry, k, kd, m, j, nullptr);
            std::vector<float> got(static_cast<std::size_t>(m));
            harness::check(cudaMemcpy(got.data(), j, got.size() * 4, cudaMemcpyDeviceToHost), "download");
            EXPECT_LE(rpes_row_error(got, ref), rpes_row_bound) << v.name << " with " << m << " pairs";
        }
    }
}

}  // namespace
}  // namespace ryoo
