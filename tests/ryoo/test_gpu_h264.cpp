// Every H.264 SAD variant against the single-thread CPU on small frames: every 4x4, 8x8 and 16x16 SAD
// exactly. Without a GPU the test skips with a message.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/h264.hpp"
#include "ryoo/h264_math.hpp"
#include "gpu_support.hpp"

namespace ryoo {
namespace {

TEST(RyooGpuH264, EverySadEqualsTheCpu) {
    if (!testsupport::have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the H.264 variants were NOT checked";
    for (const auto& [w, h, range] : {std::tuple{48, 32, 3}, std::tuple{176, 144, 16}}) {
        const H264Frames f = synthetic_frames(w, h, range, 2, 5);
        H264Sads ref = empty_sads(f);
        h264_sad4_cpu(f, ref);
        h264_larger_cpu(f, ref);
        harness::DeviceMemory memory;
        H264DeviceFrames frames(w, h);
        frames.upload(f.current.data(), f.reference.data(), nullptr);
        auto* d4 = memory.allocate<std::uint16_t>(ref.sad4.size(), "allocate");
        auto* d8 = memory.allocate<std::uint16_t>(ref.sad8.size(), "allocate");
        auto* d16 = memory.allocate<std::uint16_t>(ref.sad16.size(), "allocate");
        for (const auto& v : h264_variants().entries()) {
            harness::check(cudaMemset(d4, 0xff, ref.sad4.size() * 2), "poison");
            v.run(frames, range, d4, nullptr);
            h264_larger(d4, w, f.mb_columns() * f.mb_rows(), range, d8, d16, nullptr);
            H264Sads got = empty_sads(f);
            harness::check(cudaMemcpy(got.sad4.data(), d4, got.sad4.size() * 2, cudaMemcpyDeviceToHost), "download");
            harness::check(cudaMemcpy(got.sad8.data(), d8, got.sad8.size() * 2, cudaMemcpyDeviceToHost), "download");
            harness::check(cudaMemcpy(got.sad16.data(), d16, got.sad16.size() * 2, cudaMemcpyDeviceToHost), "download");
            EXPECT_TRUE(got == ref) << v.name << " at " << w << " x " << h << ", range " << range;
        }
    }
}

}  // namespace
}  // namespace ryoo
