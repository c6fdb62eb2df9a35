// Every FDTD GPU variant against the single-thread CPU on small grids (one not a multiple of the 32 x 8
// tile): the fields after the steps bit for bit. Without a GPU each test skips with a message.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/fdtd.hpp"
#include "gpu_support.hpp"

namespace ryoo {
namespace {

using harness::check;
using testsupport::have_gpu;

/// Cells at which @p a and @p b differ in their bits.
long long differing(const std::vector<float>& a, const std::vector<float>& b) {
    long long wrong = 0;
    for (std::size_t c = 0; c < a.size(); ++c) wrong += std::memcmp(&a[c], &b[c], sizeof(float)) != 0;
    return wrong;
}

TEST(RyooGpuFdtd, FieldsEqualTheCpuBitForBit) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the FDTD variants were NOT checked";
    for (const auto& [nx, ny] : {std::pair{64, 64}, std::pair{77, 45}}) {
        const FdtdInput in = synthetic_medium(nx, ny);
        FdtdFields reference = zero_fields(in);
        const int steps = 60;
        fdtd_run_cpu(in, reference, steps, nullptr);
        for (const auto& v : fdtd_variants().entries()) {
            harness::DeviceMemory m;
            FdtdFields got = zero_fields(in);
            FdtdDevice d;
            d.nx = nx;
            d.ny = ny;
            d.source_index = in.source_index();
            d.ex = m.upload(got.ex, "upload Ex");
            d.ey = m.upload(got.ey, "upload Ey");
            d.hz = m.upload(got.hz, "upload Hz");
            d.ce = m.upload(in.ce, "upload the E coefficients");
            d.ch = m.upload(in.ch, "upload the H coefficients");
            for (int t = 0; t < steps; ++t) v.step(d, fdtd_source(in, t), nullptr);
            const std::size_t bytes = in.cells() * sizeof(float);
            check(cudaMemcpy(got.ex.data(), d.ex, bytes, cudaMemcpyDeviceToHost), "download Ex");
            check(cudaMemcpy(got.ey.data(), d.ey, bytes, cudaMemcpyDeviceToHost), "download Ey");
            check(cudaMemcpy(got.hz.data(), d.hz, bytes, cudaMemcpyDeviceToHost), "download Hz");
            EXPECT_EQ(differing(got.ex, reference.ex), 0) << v.name << " Ex at " << nx << " x " << ny;
            EXPECT_EQ(differing(got.ey, reference.ey), 0) << v.name << " Ey at " << nx << " x " << ny;
            EXPECT_EQ(differing(got.hz, reference.hz), 0) << v.name << " Hz at " << nx << " x " << ny;
            EXPECT_GT(fdtd_energy(in, got), 0.0) << v.name << ": the source put energy in";
        }
    }
}

}  // namespace
}  // namespace ryoo
