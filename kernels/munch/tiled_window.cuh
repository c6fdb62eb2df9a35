/// @file tiled_window.cuh
/// @brief The one modern kernel of every window computation: a block stages a tile of the input with its
/// halo in shared memory and each thread keeps R consecutive outputs in registers.
///
/// Policies (CUB style: two variants differ exactly in the policy their names differ in):
///  - where the taps come from: TapsInConstant (a chunk of up to 8192 taps in `__constant__` memory per
///    launch, read as a broadcast) or TapsInShared (each stage's taps copied from global into shared
///    memory, one launch for the whole filter);
///  - OutputsPerThread R: 1 (one output per thread) or 16 (register blocking: per R taps a thread loads R
///    input values and R taps and does R*R operations, so long filters run at the arithmetic units' rate).
/// The operation (Convolve, Erode, Dilate of window_ops.hpp) is the third template parameter.
#pragma once

#include <cuda_runtime.h>

#include "munch/window_ops.hpp"

namespace munch::gpu {

/// Threads per block of the tiled kernels.
inline constexpr int tiled_threads = 128;
/// Taps per launch that the constant-memory policy holds (32 KB of the 64 KB `__constant__` space).
inline constexpr int constant_tap_capacity = 8192;

/// Index of input value @p j in the shared tile: one padding word after every R values, so that the 32
/// threads of a warp, which read at a stride of R, hit 32 different banks (stride R + 1, odd).
// [tile-slot-begin]
template <int R>
__device__ __forceinline__ int tile_slot(int j) {
    if constexpr (R == 1) return j;
    else return j + j / R;
}
// [tile-slot-end]

/// Shared-memory floats the input tile of @p tile_outputs outputs and @p stage_taps taps needs.
template <int R>
__host__ __device__ constexpr int tile_floats(int tile_outputs, int stage_taps) {
    const int values = tile_outputs + stage_taps;
    return R == 1 ? values : values + values / R + 1;
}

/// The kernel. Block b computes outputs [b*T, b*T + T), T = blockDim.x * R, of
/// out[i] = merge(previous out[i] if @p accumulate, reduce_{k<taps} combine(x[i - shift + first_tap + k], tap k)),
/// in stages of @p stage_taps taps (a power of two, a multiple of R, dividing @p taps).
/// @p taps_global holds the launch's taps from index 0 (used by TapsInShared; TapsInConstant reads the
/// constant chunk, which the host has filled with the same values).
template <class Op, class TapSource, int R>
__global__ void __launch_bounds__(tiled_threads)
tiled_window_kernel(const float* __restrict__ x, long long n, const float* __restrict__ taps_global, int taps,
                    int stage_taps, long long first_input, float* __restrict__ out, long long out_len, bool accumulate) {
    extern __shared__ float shared[];
    float* tile = shared;
    float* stage = shared + tile_floats<R>(tiled_threads * R, stage_taps);  // TapsInShared's taps
    constexpr int T = tiled_threads * R;
    const long long tile_start = static_cast<long long>(blockIdx.x) * T;
    const int t0 = threadIdx.x * R;

    float acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = Op::identity();

    // [tile-load-begin]
    for (int s0 = 0; s0 < taps; s0 += stage_taps) {
        const long long base = tile_start + first_input + s0;
        // Unrolled, so that several loads of each thread are in flight at once (short filters are limited
        // by memory, and one load at a time per thread would not saturate it).
#pragma unroll 4
        for (int j = threadIdx.x; j < T + stage_taps; j += tiled_threads)
            tile[tile_slot<R>(j)] = padded_at<Op>(x, n, base + j);
        TapSource::stage(stage, taps_global + s0, stage_taps);
        __syncthreads();
        // [tile-load-end]

        // [register-block-begin]
        float window[R];
#pragma unroll
        for (int r = 0; r < R; ++r) window[r] = tile[tile_slot<R>(t0 + r)];
        for (int k = 0; k < stage_taps; k += R) {
            float next[R];
#pragma unroll
            for (int r = 0; r < R; ++r) next[r] = tile[tile_slot<R>(t0 + k + R + r)];
#pragma unroll
            for (int j = 0; j < R; ++j) {
                const float h = TapSource::tap(stage, s0 + k + j, k + j);
#pragma unroll
                for (int r = 0; r < R; ++r) acc[r] = Op::combine(acc[r], r + j < R ? window[r + j] : next[r + j - R], h);
            }
#pragma unroll
            for (int r = 0; r < R; ++r) window[r] = next[r];
        }
        // [register-block-end]
        __syncthreads();
    }
    // The R consecutive outputs of each thread go out through shared memory, so that the global stores
    // (and the loads of an accumulating launch) are coalesced.
#pragma unroll
    for (int r = 0; r < R; ++r) tile[tile_slot<R>(t0 + r)] = acc[r];
    __syncthreads();
#pragma unroll 4
    for (int j = threadIdx.x; j < T; j += tiled_threads) {
        const long long i = tile_start + j;
        if (i < out_len) {
            const float v = tile[tile_slot<R>(j)];
            out[i] = accumulate ? Op::merge(out[i], v) : v;
        }
    }
}

}  // namespace munch::gpu
