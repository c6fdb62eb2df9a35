// The pipelined convolution (kernels/munch/pipeline.hpp) against the unpipelined direct variant: the same kernel
// computes every element, so the outputs must be equal bit for bit, for every chunk count, with and without the
// CUDA graph, for filters of one and of several launches, also when a second signal follows the first through the
// same buffers and when two pipelines with different filters take turns. Without a GPU every test skips with a
// visible message.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "gpu_support.hpp"
#include "harness/check.hpp"
#include "munch/pipeline.hpp"
#include "munch/variants.hpp"

using testsupport::have_gpu;

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    return v;
}

/// The direct variant's output of @p signal * @p filter: the unpipelined result the pipeline must reproduce.
std::vector<float> direct(const std::vector<float>& signal, const std::vector<float>& filter) {
    for (const auto& e : munch::gpu::convolution_variants())
        if (e.name == "direct-constant-r16") {
            harness::Stream s;
            auto v = e.make();
            v->prepare(signal, filter, s.get());
            v->run(s.get());
            harness::check(cudaStreamSynchronize(s.get()), "run the direct variant");
            return v->result(s.get());
        }
    ADD_FAILURE() << "direct-constant-r16 is not registered";
    return {};
}

bool same_bits(const float* a, const std::vector<float>& b) { return std::memcmp(a, b.data(), sizeof(float) * b.size()) == 0; }

/// Runs @p signal through @p p (chunked).
const float* through(munch::gpu::ConvolutionPipeline& p, const std::vector<float>& signal) {
    std::memcpy(p.input(), signal.data(), sizeof(float) * signal.size());
    p.run();
    return p.output();
}

}  // namespace

TEST(GpuPipeline, EqualsTheDirectVariantBitForBit) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the pipelined convolution NOT checked";
    struct Case {
        std::size_t n, w;
    };
    unsigned seed = 11;
    for (const Case c : {Case{1, 1}, Case{5, 9}, Case{1000, 1}, Case{100003, 9}, Case{100000, 31}, Case{100000, 33},
                         Case{65536, 99}, Case{300, 600}}) {
        const auto signal = random_floats(c.n, seed++), filter = random_floats(c.w, seed++);
        const auto expected = direct(signal, filter);
        for (std::size_t chunks : {1, 3, 16, 64})
            for (bool graph : {false, true}) {
                munch::gpu::ConvolutionPipeline p(c.n, filter, {chunks, graph});
                EXPECT_TRUE(same_bits(through(p, signal), expected))
                    << "n=" << c.n << " w=" << c.w << " chunks=" << chunks << (graph ? " (graph)" : "");
                p.run_unchunked();
                EXPECT_TRUE(same_bits(p.output(), expected)) << "unchunked, n=" << c.n << " w=" << c.w;
            }
    }
}

TEST(GpuPipeline, ASecondSignalThroughTheSameBuffersLeavesNothingOfTheFirst) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the pipelined convolution NOT checked";
    const std::size_t n = 200000, w = 9;
    const auto filter = random_floats(w, 1), first = random_floats(n, 2), second = random_floats(n, 3);
    const auto expected = direct(second, filter);
    for (bool graph : {false, true}) {
        munch::gpu::ConvolutionPipeline p(n, filter, {16, graph});
        (void)through(p, first);
        EXPECT_TRUE(same_bits(through(p, second), expected)) << (graph ? "graph" : "streams");
    }
}

TEST(GpuPipeline, TwoPipelinesWithDifferentFiltersTakeTurns) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the pipelined convolution NOT checked";
    // The taps live in one constant-memory chunk per source file: each run loads its own before its kernels.
    const std::size_t n = 50000;
    const auto signal = random_floats(n, 4), f1 = random_floats(9, 5), f2 = random_floats(7, 6);
    const auto e1 = direct(signal, f1), e2 = direct(signal, f2);
    munch::gpu::ConvolutionPipeline a(n, f1, {8, true}), b(n, f2, {8, false});
    EXPECT_TRUE(same_bits(through(a, signal), e1));
    EXPECT_TRUE(same_bits(through(b, signal), e2));
    EXPECT_TRUE(same_bits(through(a, signal), e1));
}

TEST(GpuPipeline, TheCopyFloorMovesTheSameBytesAndComputesNothing) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the pipelined convolution NOT checked";
    const std::size_t n = 100000, w = 9;
    const auto signal = random_floats(n, 7), filter = random_floats(w, 8);
    munch::gpu::ConvolutionPipeline p(n, filter, {4, false});
    const auto expected = direct(signal, filter);
    (void)through(p, signal);
    // The floor downloads the output buffer as it stands (the last run's outputs) and uploads the same signal.
    p.copy_floor(false);
    EXPECT_TRUE(same_bits(p.output(), expected));
    p.copy_floor(true);
    EXPECT_TRUE(same_bits(p.output(), expected));
}
