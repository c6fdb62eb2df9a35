/// @file direct_launch.cuh
/// @brief The launch arithmetic of the direct (streaming) convolution kernel, shared by its variant
/// (direct_variants.cu) and the pipelined convolution (pipeline.cu): the chunk sizes the kernel is instantiated
/// for, the chunk size of a filter, and the grid that fills the GPU once. Each file that includes this gets its
/// own instantiations (and, through tap_sources.cuh, its own constant-memory chunk of taps).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/check.hpp"
#include "munch/direct_window.cuh"
#include "munch/tap_sources.cuh"
#include "munch/window_ops.hpp"

namespace munch::gpu {

namespace {

/// Groups of four outputs per thread and grid step of the direct variant (16 outputs per thread).
constexpr int direct_groups_per_thread = 4;

/// The chunk sizes (taps per launch) the direct kernel is instantiated for: each a multiple of four from 4
/// on, so that a chunk after the first starts on a 16-byte boundary, and close enough together that a
/// short filter is padded by few taps (9 taps run as 12, not 16).
constexpr int direct_chunk_sizes[] = {1, 2, 4, 8, 12, 16, 24, direct_max_taps};

/// The padded taps per launch for a filter of @p width taps: the smallest chunk size that holds it, or
/// direct_max_taps (a longer filter takes several launches of that many).
int direct_chunk_taps(long long width) {
    for (int p : direct_chunk_sizes)
        if (p >= width) return p;
    return direct_max_taps;
}

/// The kernel for one chunk size, with the grid that fills the GPU once: as many blocks as fit on it
/// at once (from the occupancy of this instantiation), fewer when the output is small. Found in
/// prepare(), so that run() only launches.
struct DirectLaunch {
    /// Launches the instantiation on @p blocks blocks.
    void (*launch)(const float4* x, long long groups, float4* out, bool accumulate, unsigned blocks, cudaStream_t stream) = nullptr;
    unsigned blocks = 1;  ///< the grid
};

/// The launch of the instantiation for @p P taps per launch.
template <class TapSource, int P>
void launch_direct(const float4* x, long long groups, float4* out, bool accumulate, unsigned blocks, cudaStream_t stream) {
    direct_window_kernel<Convolve, TapSource, P, direct_groups_per_thread><<<blocks, direct_threads, 0, stream>>>(x, groups, out, accumulate);
    harness::check(cudaGetLastError(), "launch the direct window kernel");
}

/// The launch and grid of the instantiation for @p P taps over @p groups output groups.
template <class TapSource, int P>
DirectLaunch direct_launch(long long groups) {
    int device = 0, sms = 0, per_sm = 0;
    harness::check(cudaGetDevice(&device), "query the current device");
    harness::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "query the SM count");
    harness::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                       &per_sm, direct_window_kernel<Convolve, TapSource, P, direct_groups_per_thread>, direct_threads, 0),
                   "query the direct kernel's occupancy");
    const long long per_block = static_cast<long long>(direct_threads) * direct_groups_per_thread;
    const long long needed = (groups + per_block - 1) / per_block;
    const long long resident = static_cast<long long>(sms) * std::max(per_sm, 1);
    return {launch_direct<TapSource, P>, static_cast<unsigned>(std::max(1LL, std::min(needed, resident)))};
}

/// The launch for chunks of @p p taps (one of direct_chunk_sizes).
template <class TapSource>
DirectLaunch direct_launch_for(int p, long long groups) {
    switch (p) {
        case 1: return direct_launch<TapSource, 1>(groups);
        case 2: return direct_launch<TapSource, 2>(groups);
        case 4: return direct_launch<TapSource, 4>(groups);
        case 8: return direct_launch<TapSource, 8>(groups);
        case 12: return direct_launch<TapSource, 12>(groups);
        case 16: return direct_launch<TapSource, 16>(groups);
        case 24: return direct_launch<TapSource, 24>(groups);
        case direct_max_taps: return direct_launch<TapSource, direct_max_taps>(groups);
        default: throw std::logic_error("direct convolution: no kernel for " + std::to_string(p) + " taps per launch");
    }
}

/// The padded input floats that output group q reads from 4q on, for a filter padded to @p padded_taps taps
/// in launches of @p p taps: each launch starts its loads at its chunk's first tap and loads
/// direct_window_quads(p) whole float4s.
constexpr long long direct_reach(int p, long long padded_taps) { return padded_taps - p + 4LL * direct_window_quads(p); }

}  // namespace

}  // namespace munch::gpu
