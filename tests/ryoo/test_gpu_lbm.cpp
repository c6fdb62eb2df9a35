// Every LBM GPU variant against the single-thread CPU on small cavities (cell counts not multiples of the
// 128-cell block): the lattice after the steps bit for bit. Without a GPU each test skips with a message.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstring>
#include <utility>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/lbm.hpp"
#include "gpu_support.hpp"

namespace ryoo {
namespace {

using harness::check;
using testsupport::have_gpu;

TEST(RyooGpuLbm, LatticesEqualTheCpuBitForBit) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the LBM variants were NOT checked";
    for (const int edge : {12, 19}) {
        const LbmInput in = lbm_cavity(edge, edge + 1, edge - 1, 1.2f, 0.1f, true, true);
        std::vector<float> reference = lbm_rest(in);
        const int steps = 25;
        lbm_run_cpu(in, reference, steps);
        for (const auto& v : lbm_variants().entries()) {
            harness::DeviceMemory m;
            const std::vector<float> start = v.soa ? lbm_to_soa(lbm_rest(in), in.cells()) : lbm_rest(in);
            float* a = m.upload(start, "upload the lattice");
            float* b = m.allocate<float>(start.size(), "allocate the second lattice");
            LbmGeometry g;
            g.flags = m.upload(in.flags, "upload the flags");
            g.nx = in.nx;
            g.ny = in.ny;
            g.nz = in.nz;
            g.omega = in.omega;
            g.lid_velocity = in.lid_velocity;
            for (int t = 0; t < steps; ++t) {
                v.step(a, b, g, nullptr);
                std::swap(a, b);
            }
            std::vector<float> got(start.size());
            check(cudaMemcpy(got.data(), a, got.size() * sizeof(float), cudaMemcpyDeviceToHost), "download the lattice");
            if (v.soa) got = lbm_to_aos(got, in.cells());
            long long wrong = 0;
            for (std::size_t k = 0; k < got.size(); ++k) wrong += std::memcmp(&got[k], &reference[k], sizeof(float)) != 0;
            EXPECT_EQ(wrong, 0) << v.name << " at edge " << edge;
        }
    }
}

}  // namespace
}  // namespace ryoo
