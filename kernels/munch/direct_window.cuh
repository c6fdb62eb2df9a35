/// @file direct_window.cuh
/// @brief The streaming kernel of short window computations: no shared-memory tile; each thread reads
/// its window straight from global memory with 16-byte loads, keeps the taps in registers and writes
/// groups of four outputs with 16-byte stores, over a grid sized to the GPU (grid-stride loop).
///
/// A filter of 1 to 9 taps does 1 to 9 multiply-adds per 8 bytes of least traffic, far below the
/// GPU's ridge point, so the kernel is judged by the bandwidth it streams at. The tiled kernel stages
/// every input through shared memory and a barrier, with one tile per block and a grid of tiles; at
/// short filters that costs more than it saves. Here the reuse of an input by neighbouring outputs is
/// left to the L1 cache (the loads of neighbouring threads overlap), and the bytes in flight that the
/// memory system needs come from U independent groups per thread, whose loads are all issued before
/// any of them is used.
///
/// Policies (as for tiled_window.cuh): the taps source (TapsInConstant; its chunk is read once per
/// thread into registers), the padded taps per launch P (a compile-time count, so that the window and
/// the taps live in registers) and the groups of four outputs per thread U (4 U outputs per thread and
/// grid step). The operation (window_ops.hpp) is the first template parameter.
#pragma once

#include <cuda_runtime.h>

#include "munch/window_ops.hpp"

namespace munch::gpu {

/// Threads per block of the direct kernel.
inline constexpr int direct_threads = 256;
/// The most taps one launch of the direct kernel holds in registers; a longer filter takes several
/// launches, each adding its chunk's sum to the output.
inline constexpr int direct_max_taps = 32;

/// float4 loads that cover the window of four outputs and @p taps taps: inputs 4q .. 4q + taps + 2.
__host__ __device__ constexpr int direct_window_quads(int taps) { return (taps + 2) / 4 + 1; }

/// The kernel. With the input padded so that output i reads inputs i .. i + P - 1 (the host pads
/// `shift` leading values, which makes every group of four outputs start at a 16-byte boundary), group q
/// (outputs 4q .. 4q + 3) of out is
///     out[4q + r] = merge(previous value if @p accumulate, reduce_{k<P} combine(x[4q + r + k], tap k)).
/// @p x points at the launch's first input (a multiple of four floats past the padded input's start),
/// @p groups is the number of output groups (the output array holds 4 @p groups floats and the input at
/// least 4 @p groups + P + 4 from @p x), and the taps are the launch's chunk of @p TapSource.
// [direct-kernel-begin]
template <class Op, class TapSource, int P, int U>
__global__ void __launch_bounds__(direct_threads)
direct_window_kernel(const float4* __restrict__ x, long long groups, float4* __restrict__ out, bool accumulate) {
    static_assert(!TapSource::in_shared, "the direct kernel has no shared memory to stage taps in");
    constexpr int L = direct_window_quads(P);
    float h[P];
#pragma unroll
    for (int k = 0; k < P; ++k) h[k] = TapSource::tap(nullptr, k, k);

    const long long stride = static_cast<long long>(gridDim.x) * direct_threads;
    for (long long first = static_cast<long long>(blockIdx.x) * direct_threads + threadIdx.x; first < groups;
         first += U * stride) {
        // Every load of the U groups first, so that U * L 16-byte loads per thread are in flight at once.
        float4 in[U][L];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long q = first + u * stride;
#pragma unroll
            for (int m = 0; m < L; ++m) in[u][m] = q < groups ? x[q + m] : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long q = first + u * stride;
            if (q >= groups) break;
            float v[4 * L];
#pragma unroll
            for (int m = 0; m < L; ++m) {
                v[4 * m] = in[u][m].x;
                v[4 * m + 1] = in[u][m].y;
                v[4 * m + 2] = in[u][m].z;
                v[4 * m + 3] = in[u][m].w;
            }
            float acc[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[r] = Op::identity();
#pragma unroll
            for (int k = 0; k < P; ++k)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[r] = Op::combine(acc[r], v[r + k], h[k]);
            float4 result = make_float4(acc[0], acc[1], acc[2], acc[3]);
            if (accumulate) {
                const float4 previous = out[q];
                result = make_float4(Op::merge(previous.x, result.x), Op::merge(previous.y, result.y),
                                     Op::merge(previous.z, result.z), Op::merge(previous.w, result.w));
            }
            out[q] = result;
        }
    }
}
// [direct-kernel-end]

}  // namespace munch::gpu
