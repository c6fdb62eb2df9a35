// The chunk plan of the pipelined convolution (src/munch/pipeline_plan.hpp), on the CPU: the chunks cover the
// outputs and the uploads cover the signal once each, in order; and a simulated device run that uploads and
// computes chunk by chunk, with every sample not yet uploaded poisoned (NaN), reads only what was uploaded and
// reproduces the whole-signal CPU convolution (src/munch/cpu/convolution.hpp) exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "munch/cpu/convolution.hpp"
#include "munch/pipeline_plan.hpp"

using munch::PipelineChunk;
using munch::plan_pipeline;

namespace {

/// The reach of the direct kernel (kernels/munch/direct_window.cuh) for a filter of @p w taps, worked out here
/// from its launch arithmetic: P taps per launch (the smallest of 1, 2, 4, 8, 12, 16, 24, 32 that holds w, else
/// 32), the filter padded to a multiple of P, and each launch loading (P + 2) / 4 + 1 whole float4s per group
/// from its chunk's first tap on.
std::size_t direct_reach(std::size_t w) {
    std::size_t p = 32;
    for (std::size_t c : {1, 2, 4, 8, 12, 16, 24, 32})
        if (c >= w) {
            p = c;
            break;
        }
    const std::size_t padded = (w + p - 1) / p * p;
    return padded - p + 4 * ((p + 2) / 4 + 1);
}

std::vector<float> signal_of(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> s(n);
    for (auto& v : s) v = u(rng);
    return s;
}

/// Runs @p plan on a simulated device: the padded input starts as zeros with the signal's positions poisoned
/// (NaN), each chunk uploads its piece and then computes its groups from the padded input alone, as the kernel
/// does (every position of the group's reach is read). Returns the outputs, or throws std::runtime_error naming
/// the first read of a position not yet uploaded.
std::vector<double> simulate(const std::vector<PipelineChunk>& plan, const std::vector<float>& signal,
                             const std::vector<float>& filter, std::size_t reach) {
    const std::size_t n = signal.size(), w = filter.size(), outputs = n + w - 1, groups = (outputs + 3) / 4;
    const double poison = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> device(4 * groups + reach, 0.0);
    for (std::size_t i = 0; i < n; ++i) device[w - 1 + i] = poison;
    std::vector<double> out(outputs, poison);
    for (const PipelineChunk& c : plan) {
        for (std::size_t i = 0; i < c.copy_count; ++i) device[w - 1 + c.copy_first + i] = signal.at(c.copy_first + i);
        for (std::size_t q = c.first_group; q < c.first_group + c.groups; ++q) {
            for (std::size_t j = 4 * q; j < munch::pipeline_read_end(q, reach); ++j)
                if (std::isnan(device.at(j)))
                    throw std::runtime_error("group " + std::to_string(q) + " reads padded input " + std::to_string(j) +
                                             " before it was uploaded");
            for (std::size_t i = 4 * q; i < 4 * q + 4 && i < outputs; ++i) {
                // Output i = sum over taps k of signal[i - k] filter[k]: padded input i + (w - 1 - k), in the
                // reference's order (k ascending); terms on the padding add zeros.
                double sum = 0;
                for (std::size_t k = 0; k < w; ++k)
                    sum += device[i + (w - 1 - k)] * static_cast<double>(filter[k]);
                out[i] = sum;
            }
        }
    }
    return out;
}

struct Case {
    std::size_t n, w, chunks;
};

}  // namespace

TEST(PipelinePlan, RefusesEmptyInputsAndAReachShorterThanAGroupsWindow) {
    EXPECT_THROW(plan_pipeline(0, 9, 16, 4), std::invalid_argument);
    EXPECT_THROW(plan_pipeline(100, 0, 16, 4), std::invalid_argument);
    EXPECT_THROW(plan_pipeline(100, 9, 16, 0), std::invalid_argument);
    EXPECT_THROW(plan_pipeline(100, 9, 11, 4), std::invalid_argument);  // 4 outputs of 9 taps read 12 inputs
    EXPECT_NO_THROW(plan_pipeline(100, 9, 12, 4));
}

TEST(PipelinePlan, ChunksCoverTheOutputsAndUploadsCoverTheSignalOnceInOrder) {
    for (const Case& c : {Case{1, 1, 1}, Case{3, 9, 4}, Case{1000, 9, 7}, Case{1000, 33, 8}, Case{12345, 99, 16},
                          Case{10, 1, 100}, Case{4096, 32, 4}}) {
        const std::size_t reach = direct_reach(c.w);
        const auto plan = plan_pipeline(c.n, c.w, reach, c.chunks);
        const std::size_t outputs = c.n + c.w - 1, groups = (outputs + 3) / 4;
        ASSERT_FALSE(plan.empty());
        EXPECT_LE(plan.size(), std::min(c.chunks, groups));
        std::size_t next_group = 0, next_output = 0, next_sample = 0;
        for (const PipelineChunk& k : plan) {
            EXPECT_EQ(k.first_group, next_group);
            EXPECT_GT(k.groups, 0u);
            EXPECT_EQ(k.out_first, next_output);
            EXPECT_EQ(k.out_first, 4 * k.first_group);
            EXPECT_EQ(k.copy_first, next_sample);
            next_group += k.groups;
            next_output += k.out_count;
            next_sample += k.copy_count;
        }
        EXPECT_EQ(next_group, groups) << "n=" << c.n << " w=" << c.w;
        EXPECT_EQ(next_output, outputs) << "n=" << c.n << " w=" << c.w;
        EXPECT_EQ(next_sample, c.n) << "n=" << c.n << " w=" << c.w;
    }
}

TEST(PipelinePlan, ChunkedRunReadsOnlyUploadedSamplesAndEqualsTheWholeSignalConvolution) {
    unsigned seed = 1;
    for (const Case& c : {Case{1, 1, 1}, Case{5, 9, 3}, Case{1000, 1, 7}, Case{1000, 9, 7}, Case{1001, 9, 16},
                          Case{2000, 31, 5}, Case{2000, 33, 6}, Case{3000, 99, 9}, Case{500, 600, 4}, Case{64, 3, 64}}) {
        const auto signal = signal_of(c.n, seed++);
        const auto filter = signal_of(c.w, seed++);
        const std::vector<double> whole = munch::cpu::convolution_reference(signal, filter);
        for (std::size_t reach : {direct_reach(c.w), c.w + 3, c.w + 40}) {
            const auto plan = plan_pipeline(c.n, c.w, reach, c.chunks);
            std::vector<double> chunked;
            ASSERT_NO_THROW(chunked = simulate(plan, signal, filter, reach)) << "n=" << c.n << " w=" << c.w << " reach=" << reach;
            ASSERT_EQ(chunked.size(), whole.size());
            for (std::size_t i = 0; i < whole.size(); ++i)
                ASSERT_EQ(chunked[i], whole[i]) << "output " << i << " of n=" << c.n << " w=" << c.w << " in "
                                                << plan.size() << " chunks";
        }
    }
}

TEST(PipelinePlan, TheSimulationCatchesUploadsThatEndAtTheOutputsOrComeLate) {
    // Two broken schedules of the same chunks, each of which the simulated run must catch (this is what the test
    // above rules out): uploads that stop at the chunk's last output (the kernel's whole loads and the zero taps
    // that pad the filter read past it), and uploads that come one chunk late (the left halo and the chunk's own
    // samples not up when its kernels run).
    const std::size_t n = 1000, w = 9, reach = direct_reach(w);
    const auto signal = signal_of(n, 7), filter = signal_of(w, 8);
    const auto plan = plan_pipeline(n, w, reach, 8);
    ASSERT_NO_THROW(simulate(plan, signal, filter, reach));
    auto short_uploads = plan;
    std::size_t uploaded = 0;
    for (PipelineChunk& c : short_uploads) {
        const std::size_t own_end = std::min(n, c.out_first + c.out_count);  // signal index of its last output + 1
        c.copy_first = uploaded;
        c.copy_count = own_end > uploaded ? own_end - uploaded : 0;
        uploaded += c.copy_count;
    }
    EXPECT_THROW(simulate(short_uploads, signal, filter, reach), std::runtime_error);
    auto late = plan;
    for (std::size_t k = late.size(); k-- > 1;) {
        late[k].copy_first = late[k - 1].copy_first;
        late[k].copy_count = late[k - 1].copy_count;
    }
    late[0].copy_count = 0;
    EXPECT_THROW(simulate(late, signal, filter, reach), std::runtime_error);
}
