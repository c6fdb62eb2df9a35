// The GPU engine on a device: the L2 flush is sized from the device, a measurement obeys its criterion and
// records its clock, a cold sample of an input that fits in L2 is slower than a warm one, and a captured
// graph replays what it captured.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <vector>

#include "gpu_support.hpp"
#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/measure_cuda.hpp"

namespace {

using testsupport::have_gpu;

#define NEED_GPU()                                                                                            \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the GPU engine was NOT checked (run make " \
                                     "test-gpu on a GPU)"

TEST(GpuMeasure, FlushIsSizedFromTheDevicesL2) {
    NEED_GPU();
    int device = 0, l2 = 0;
    harness::check(cudaGetDevice(&device), "device");
    harness::check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
    harness::L2Flush flush;
    EXPECT_EQ(flush.l2_bytes(), static_cast<std::size_t>(l2));
    harness::Stream stream;
    flush.flush(stream.get());  // runs and waits without error
}

TEST(GpuMeasure, FollowsTheCriterionAndRecordsEverySample) {
    NEED_GPU();
    harness::DeviceMemory memory;
    const std::size_t n = 1 << 20;
    float* a = memory.allocate<float>(n, "a");
    float* b = memory.allocate<float>(n, "b");
    harness::Stream stream;
    harness::ClockMonitor monitor(harness::current_pci_bus_id());
    harness::MeasureOptions o;
    o.stop.min_samples = 4;
    o.stop.max_samples = 6;
    o.stop.noise_target_pct = 0;  // never met: the count or the settling ends it
    o.stop.settle_window = 0;
    o.throttle = harness::Throttle::keep;
    const auto m = harness::measure(stream.get(), o, monitor, [&] {
        harness::check(cudaMemcpyAsync(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice, stream.get()), "copy");
    });
    EXPECT_EQ(m.samples.size(), 6u);
    EXPECT_EQ(m.stop_reason, "max_samples");
    EXPECT_FALSE(m.cold);
    for (const auto& s : m.samples) {
        EXPECT_GT(s.ms, 0.0);
        if (monitor.available()) {
            EXPECT_GT(s.clock.polls, 0);
            EXPECT_GT(s.clock.sm_clock_mhz, 0.0);
        }
    }
}

TEST(GpuMeasure, AColdCopyOfAnInputThatFitsInL2IsSlowerThanAWarmOne) {
    NEED_GPU();
    // A quarter of the L2 read and a quarter written: warm, both stay in L2; cold, the source comes from memory.
    // Another process's kernels would evict the warm copy's lines too (seen: the warm median above the cold one
    // while the other test programs ran), so this program runs alone (RUN_SERIAL in tests/harness/CMakeLists.txt,
    // which tools/test_gpu.py follows).
    harness::L2Flush probe;
    if (probe.l2_bytes() < (1u << 20)) GTEST_SKIP() << "the device reports an L2 below 1 MiB";
    const std::size_t n = probe.l2_bytes() / 4 / sizeof(float);
    harness::DeviceMemory memory;
    float* a = memory.allocate<float>(n, "a");
    float* b = memory.allocate<float>(n, "b");
    harness::check(cudaMemset(a, 0, n * sizeof(float)), "clear");
    harness::Stream stream;
    harness::ClockMonitor monitor(harness::current_pci_bus_id());
    harness::MeasureOptions o;
    o.stop.min_samples = 41;
    o.stop.max_samples = 41;
    o.throttle = harness::Throttle::keep;
    const auto copy = [&] {
        harness::check(cudaMemcpyAsync(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice, stream.get()), "copy");
    };
    const auto warm = harness::measure(stream.get(), o, monitor, copy);
    o.cold = true;
    const auto cold = harness::measure(stream.get(), o, monitor, copy);
    EXPECT_TRUE(cold.cold);
    std::printf("%zu bytes copied: warm median %.4f ms, cold median %.4f ms\n", n * sizeof(float), warm.summary().median,
                cold.summary().median);
    EXPECT_GT(cold.summary().median, warm.summary().median);
}

TEST(GpuMeasure, AGraphReplaysWhatItCaptured) {
    NEED_GPU();
    harness::DeviceMemory memory;
    const std::size_t n = 1024;
    float* a = memory.allocate<float>(n, "a");
    harness::Stream stream;
    harness::check(cudaMemsetAsync(a, 0, n * sizeof(float), stream.get()), "clear");
    {
        const harness::Graph graph(stream.get(), [&] {
            harness::check(cudaMemsetAsync(a, 0x3f, n * sizeof(float), stream.get()), "fill");
        });
        harness::check(cudaMemsetAsync(a, 0, n * sizeof(float), stream.get()), "clear again");
        graph.launch(stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "replay");
    }
    std::vector<unsigned char> host(n * sizeof(float));
    harness::check(cudaMemcpy(host.data(), a, host.size(), cudaMemcpyDeviceToHost), "download");
    for (unsigned char c : host) ASSERT_EQ(c, 0x3f);
}

}  // namespace
