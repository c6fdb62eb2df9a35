// Every FEM stand-in GPU variant against the single-thread CPU on small meshes (node counts not a multiple of
// the block): the state after the steps bit for bit. Without a GPU the test skips with a message.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/fem.hpp"
#include "gpu_support.hpp"

namespace ryoo {
namespace {

using harness::check;
using testsupport::have_gpu;

TEST(RyooGpuFem, StateEqualsTheCpuBitForBit) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the FEM variants were NOT checked";
    for (int edge : {5, 12}) {
        const FemMesh shuffled = synthetic_fem_mesh(edge);
        const int steps = 40;
        FemState reference = fem_initial(shuffled);
        fem_run_cpu(shuffled, reference, steps);
        for (const auto& v : fem_variants().entries()) {
            const FemMesh mesh = v.row_ordered ? fem_row_ordered(shuffled) : shuffled;
            const FemState start = fem_initial(mesh);
            harness::DeviceMemory m;
            FemDevice d;
            d.row_start = m.upload(mesh.row_start, "upload the row offsets");
            d.column = m.upload(mesh.column, "upload the column indices");
            d.value = m.upload(mesh.value, "upload the stiffness values");
            d.step_weight = m.upload(mesh.step_weight, "upload the step weights");
            d.v = m.upload(start.v, "upload the velocity");
            d.dt = mesh.dt;
            d.nodes = static_cast<int>(mesh.nodes());
            float* u = m.upload(start.u, "upload the displacement");
            float* next = m.allocate<float>(mesh.nodes(), "allocate the next displacement");
            for (int t = 0; t < steps; ++t) {
                v.step(d, u, next, nullptr);
                std::swap(u, next);
            }
            FemState got = start;
            check(cudaMemcpy(got.u.data(), u, mesh.nodes() * sizeof(float), cudaMemcpyDeviceToHost), "download the displacement");
            check(cudaMemcpy(got.v.data(), d.v, mesh.nodes() * sizeof(float), cudaMemcpyDeviceToHost), "download the velocity");
            EXPECT_EQ(fem_renumber(mesh, got, shuffled), reference) << v.name << " at edge " << edge;
        }
    }
}

}  // namespace
}  // namespace ryoo
