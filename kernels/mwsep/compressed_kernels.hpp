/// @file compressed_kernels.hpp
/// @brief The compressed variant family as its host sees it (compressed-f64): a different algorithm from
/// the exact sum, the Gauss rules of each area's line-of-sight measure with the error controller of
/// cpu/compressed_cell.hpp, and exact sums for what the controller does not accept.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "kernel_set.hpp"
#include "mwsep/cpu/compressed_cell.hpp"
#include "tidal_streams.hpp"

namespace mwsep::cuda {

/// Reduction chunks of the compressed family (fixed, so the sums do not depend on the launch shape).
inline constexpr int compressed_chunks = 1024;
/// Threads of a block of the exact fallback kernel (fixed: the fallback sums' order depends on it).
inline constexpr int compressed_fallback_threads = 128;
/// Blocks of the exact fallback kernel; each walks the list of fallbacks in steps of this many.
inline constexpr int compressed_fallback_blocks = 2048;

/// The device data of one area for the compressed kernels (owned by the family's DeviceMemory).
struct CompressedArea : AreaGrid {
    const double* sinb = nullptr;  ///< per cell: sin b
    const double* sinl = nullptr;  ///< per cell: sin l
    const double* cosb = nullptr;  ///< per cell: cos b
    const double* cosl = nullptr;  ///< per cell: cos l
    const double* ids = nullptr;   ///< per nu bin: sin(nu_hi) - sin(nu_lo)
    const double* folded_r = nullptr;  ///< every point of a line of sight (exact fallback)
    const double* folded_w = nullptr;  ///< their folded weights
    const double* block_weight = nullptr;  ///< per r bin: sum of its weights
    const double* block_r_min = nullptr;   ///< per r bin: smallest point distance
    const double* block_r_max = nullptr;   ///< per r bin: largest point distance
    cpu::LadderView ladder;                ///< the area's rules, device pointers
    double threshold[max_streams] = {};    ///< per stream: the skip threshold (stream_skipping.hpp)
    /// Per stream: the skip threshold computed on the device (launch_compressed_thresholds()); when set, the
    /// kernels read it instead of threshold[].
    const double* device_threshold = nullptr;
    double los_r_min = 0;       ///< the line of sight's smallest point distance (the thresholds' search)
    double los_r_max = 0;       ///< its largest
    double los_weight_sum = 0;  ///< the sum of its weights
    double tolerance = 1e-14;              ///< the controller's relative tolerance
    double* cell_out = nullptr;       ///< per component and cell [c * padded + p]: the cell's value (ids included)
    double* cell_estimate = nullptr;  ///< per component and cell: the accepted estimate (ids included), 0 if exact
    int* worklist = nullptr;          ///< (cell, component) pairs that need the exact sum
    unsigned* counters = nullptr;     ///< [0]: pairs in the worklist; [1 + c]: fallbacks of component c
    double* partials = nullptr;       ///< per component and chunk: sum, compensation, estimates [(c * chunks + i) * 3]
};

/// Queues the compressed kernels of one area (cells, fallbacks, reduction) without host synchronisation.
using CompressedLaunchFn = void (*)(const CompressedArea& area, const TidalStreams& streams, const LaunchOptions& options,
                                    cudaStream_t queue);

/// Blocks of the device skip thresholds' search (launch_compressed_thresholds()).
inline constexpr int compressed_threshold_blocks = 128;
/// Threads of each of their blocks.
inline constexpr int compressed_threshold_threads = 256;
/// Equal parts of the line of sight whose sums at a stream's best cell separate blocks compute.
inline constexpr int compressed_threshold_parts = 32;
/// Doubles of scratch the device skip thresholds need: (bound, cell) per search block and stream, then the sum of
/// each part per stream.
inline constexpr std::size_t compressed_threshold_scratch =
    2u * compressed_threshold_blocks * max_streams + static_cast<std::size_t>(compressed_threshold_parts) * max_streams;

/// Queues the device skip thresholds of @p streams over one area on @p queue: into @p thresholds (max_streams
/// doubles, the first streams.count written), with @p scratch (compressed_threshold_scratch doubles). The same
/// definition as likelihood::stream_skip_thresholds() (the cell of the largest line-of-sight bound, that cell's
/// exact stream sum, times 2^-60 over cells x r bins), with the device's exponential and logarithm and its own
/// order of the sum: the values may differ from the host's in the last bits.
using CompressedThresholdsFn = void (*)(const CompressedArea& area, const TidalStreams& streams, double* thresholds,
                                        double* scratch, cudaStream_t queue);

/// One variant of the compressed family.
struct CompressedVariant {
    KernelSet kernels;                  ///< name, precision, kernel instances
    CompressedLaunchFn launch = nullptr;  ///< queues its kernels
    CompressedThresholdsFn thresholds = nullptr;  ///< queues the device skip thresholds
};

/// Adds compressed-f64 (compressed.cu).
void add_compressed_variants(std::vector<CompressedVariant>& out);

}  // namespace mwsep::cuda
