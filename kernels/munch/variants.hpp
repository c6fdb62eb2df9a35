/// @file variants.hpp
/// @brief The GPU implementations of the study's window computations (convolution, rolling ball), each
/// behind one interface so that the benchmark and the tests treat them alike.
///
/// A variant's `prepare` does what the thesis counted as overhead (device allocation, padding, uploads,
/// plans); `run` is what its "pure GPU time" timed: everything from the first launch to the last, the
/// per-chunk uploads of the filter into constant memory included; `result` downloads the output.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/device_budget.hpp"

namespace munch::gpu {

/// One GPU implementation of a window computation, prepared for one input.
class Variant {
public:
    virtual ~Variant() = default;
    /// What prepare() allocates on the device for a signal of @p n samples and a filter of @p w taps, item by
    /// item (computed from the sizes alone: the device memory check before any allocation).
    virtual harness::DevicePlan plan(std::size_t n, std::size_t w) const = 0;
    /// Allocates, pads and uploads @p signal and @p taps (the filter as the CPU reference takes it: the
    /// convolution filter N, or the ball L) on @p stream, and waits for the uploads.
    virtual void prepare(const std::vector<float>& signal, const std::vector<float>& taps, cudaStream_t stream) = 0;
    /// Computes the output on @p stream (asynchronously where the variant allows it).
    virtual void run(cudaStream_t stream) = 0;
    /// The output (n + w - 1 values for a convolution, n for a rolling ball), after run() completed.
    virtual std::vector<float> result(cudaStream_t stream) const = 0;
};

/// A named way to make a variant.
struct VariantEntry {
    std::string name;                          ///< as in result files and on the command line
    std::string description;                   ///< one line: what it is and where it comes from
    std::function<std::unique_ptr<Variant>()> make;  ///< a fresh, unprepared instance
};

/// Every convolution variant: the thesis's two attempts, the tiled kernels, the direct (streaming) kernel
/// for short filters, the cuFFT convolution.
std::vector<VariantEntry> convolution_variants();

/// Every rolling-ball variant: the thesis's kernels and the tiled one.
std::vector<VariantEntry> rolling_ball_variants();

/// @cond INTERNAL
// The families, each defined with its kernels; the two lists above concatenate them.
std::vector<VariantEntry> thesis_convolution_variants();
std::vector<VariantEntry> tiled_convolution_variants();
std::vector<VariantEntry> direct_convolution_variants();
std::vector<VariantEntry> fft_convolution_variants();
std::vector<VariantEntry> thesis_rolling_ball_variants();
std::vector<VariantEntry> tiled_rolling_ball_variants();
/// @endcond

}  // namespace munch::gpu
