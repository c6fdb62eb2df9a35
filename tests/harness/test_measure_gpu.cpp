// The GPU engine on a device: the L2 flush is sized from the device, a measurement obeys its criterion and
// records its clock, a cold read of an input that fits in L2 is slower than a warm one, and a captured
// graph replays what it captured.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gpu_support.hpp"
#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "chase_probe.hpp"

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

TEST(GpuMeasure, AColdReadOfAnInputThatFitsInL2IsSlowerThanAWarmOne) {
    NEED_GPU();
    // One thread follows a chain of dependent loads through lines spread over a quarter of the L2: warm, the lines
    // are still in L2 from the sample before; cold, the flush has replaced them, so each load waits for device
    // memory. Things this test once got wrong are kept out:
    //  - the probe is a chain of dependent loads, whose time is mostly load latency (device memory's well above
    //    L2's), not launch overhead or bandwidth. A device-to-device cudaMemcpy's warm median on H200s went from
    //    0.0187 ms to 0.0253 ms from run to run and once lay above the cold one (0.0238 ms warm, 0.0212 ms cold:
    //    experiments/records/test-gpu-nvidia-h200-20261129), and a kernel reading a quarter of the L2 at full
    //    width, whose time of about 0.02 ms was mostly its launch, came out about 4 % faster cold than warm in
    //    every one of six runs on an H200;
    //  - the clocks are brought up before anything is timed, and the two states alternate in rounds, each round
    //    starting with the other, so neither gets the slow clocks of a device coming out of idle;
    //  - other processes' kernels would evict the warm lines too, so this program runs alone (RUN_SERIAL in
    //    tests/harness/CMakeLists.txt, which tools/test_gpu.py follows).
    harness::L2Flush probe;
    if (probe.l2_bytes() < (1u << 20)) GTEST_SKIP() << "the device reports an L2 below 1 MiB";
    const std::size_t words = probe.l2_bytes() / 4 / sizeof(unsigned);
    const std::size_t links = std::min<std::size_t>(4096, words / harness_test::chain_words_per_line);
    const std::vector<unsigned> chain = harness_test::make_chain(words, links);
    harness::DeviceMemory memory;
    unsigned* a = memory.allocate<unsigned>(words, "chain");
    unsigned* sink = memory.allocate<unsigned>(1, "sink");
    harness::check(cudaMemcpy(a, chain.data(), words * sizeof(unsigned), cudaMemcpyHostToDevice), "upload the chain");
    harness::check(cudaMemset(sink, 0xff, sizeof(unsigned)), "mark the sink");
    harness::Stream stream;
    const auto read = [&] { harness_test::enqueue_chase(a, links, sink, stream.get()); };
    const double warm_up_until = harness::steady_seconds() + 0.2;
    while (harness::steady_seconds() < warm_up_until) {
        read();
        harness::check(cudaStreamSynchronize(stream.get()), "warm up");
    }
    harness::ClockMonitor monitor(harness::current_pci_bus_id());
    harness::MeasureOptions o;
    o.stop.min_samples = 9;
    o.stop.max_samples = 9;
    o.throttle = harness::Throttle::keep;
    struct State {
        std::vector<double> ms;  // every sample's time
        double mhz = 0;          // the SM clocks seen, summed
        int clocks = 0;          // samples with a clock reading
        double mean_mhz() const { return mhz / clocks; }
    } warm_state, cold_state;
    for (int round = 0; round < 6; ++round) {
        for (int k = 0; k < 2; ++k) {
            o.cold = (round + k) % 2 == 1;
            State& state = o.cold ? cold_state : warm_state;
            const auto m = harness::measure(stream.get(), o, monitor, read);
            EXPECT_EQ(m.cold, o.cold);
            for (const auto& sample : m.samples) {
                state.ms.push_back(sample.ms);
                if (sample.clock.polls > 0) state.mhz += sample.clock.sm_clock_mhz, ++state.clocks;
            }
        }
    }
    const double warm = harness::summarize(warm_state.ms).median, cold = harness::summarize(cold_state.ms).median;
    const std::string clocks = warm_state.clocks && cold_state.clocks
                                   ? std::to_string(warm_state.mean_mhz()) + " MHz warm, " +
                                         std::to_string(cold_state.mean_mhz()) + " MHz cold"
                                   : "not monitored";
    std::printf("%zu dependent loads over %zu bytes, %zu samples each: warm median %.4f ms, cold median %.4f ms; "
                "mean SM clock %s\n",
                links, words * sizeof(unsigned), warm_state.ms.size(), warm, cold, clocks.c_str());
    unsigned end = 1;
    harness::check(cudaMemcpy(&end, sink, sizeof end, cudaMemcpyDeviceToHost), "read where the chase ended");
    EXPECT_EQ(end, 0u) << "the chain is closed: a whole turn ends where it began";
    EXPECT_GT(cold, warm);
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
