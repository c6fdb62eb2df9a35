/// @file tap_sources.cuh
/// @brief Where a window kernel reads its taps from: the taps policies of the tiled and direct kernels.
///
/// Each source file that includes this header gets its own `__constant__` chunk (the symbol is internal to
/// it), which the policy's upload fills before every launch of that file's kernels.
#pragma once

#include <cuda_runtime.h>

#include "harness/check.hpp"
#include "munch/tiled_window.cuh"

namespace munch::gpu {

namespace {

/// The constant-memory policy's chunk of taps.
__constant__ float c_tiled_taps[constant_tap_capacity];

/// Taps in constant memory: each launch's chunk is copied (device to device) into c_tiled_taps first;
/// every thread of a warp reads the same tap, which the constant cache serves as one broadcast.
struct TapsInConstant {
    static constexpr const char* name = "constant";  ///< in variant names
    static constexpr int launch_capacity = constant_tap_capacity;  ///< taps per launch
    static constexpr bool in_shared = false;  ///< whether the kernel needs shared memory for the taps
    /// Nothing to stage: the taps are in constant memory.
    __device__ static void stage(float*, const float*, int) {}
    /// Tap @p launch_index of the launch's chunk.
    __device__ static float tap(const float*, int launch_index, int) { return c_tiled_taps[launch_index]; }
    /// Copies the launch's @p count taps from device memory into the constant chunk, on @p stream.
    static void upload(const float* taps, int count, cudaStream_t stream) {
        harness::check(cudaMemcpyToSymbolAsync(c_tiled_taps, taps, sizeof(float) * count, 0, cudaMemcpyDeviceToDevice, stream),
                       "copy a filter chunk into constant memory");
    }
};

/// Taps in shared memory: each stage's taps are copied from global memory beside the input tile, one
/// launch for the whole filter.
struct TapsInShared {
    static constexpr const char* name = "shared";  ///< in variant names
    static constexpr int launch_capacity = 1 << 30;  ///< taps per launch: all of them
    static constexpr bool in_shared = true;  ///< whether the kernel needs shared memory for the taps
    /// Copies the stage's @p count taps from global into shared memory (all threads of the block).
    __device__ static void stage(float* stage, const float* taps, int count) {
        for (int j = threadIdx.x; j < count; j += tiled_threads) stage[j] = taps[j];
    }
    /// Tap @p stage_index of the stage.
    __device__ static float tap(const float* stage, int, int stage_index) { return stage[stage_index]; }
    /// Nothing to upload before a launch.
    static void upload(const float*, int, cudaStream_t) {}
};

}  // namespace

}  // namespace munch::gpu
