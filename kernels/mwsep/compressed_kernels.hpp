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

/// One variant of the compressed family.
struct CompressedVariant {
    KernelSet kernels;                  ///< name, precision, kernel instances
    CompressedLaunchFn launch = nullptr;  ///< queues its kernels
};

/// Adds compressed-f64 (compressed.cu).
void add_compressed_variants(std::vector<CompressedVariant>& out);

}  // namespace mwsep::cuda
