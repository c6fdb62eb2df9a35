/// @file h264.cuh
/// @brief H.264 motion estimation: one kernel template for the SADs of every 4x4 block at every vector of
/// the search window, whose policies are how the reference frame is read and how the SAD loops are
/// written, and the kernel that sums them into 8x8 and 16x16 SADs.
///
/// One thread block per 4x4 block of the current frame: its 16 pixels are staged in shared memory, and
/// the threads stride over the vectors of the window, adjacent threads taking adjacent vectors of one row
/// (so that they read adjacent reference pixels). With register tiling a thread takes Tile adjacent
/// vectors of one row and reads each reference row of 4 + Tile - 1 pixels once for all of them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ryoo/h264_math.hpp"

namespace ryoo::kernels {

/// Threads per block of both kernels.
inline constexpr int h264_block = 128;

/// What a reference read needs: the pitched frame, its size, and the texture object over it.
struct H264Frame {
    const std::uint8_t* ref;  ///< reference frame, rows @p pitch bytes apart
    int pitch;                ///< bytes between reference rows
    int width;                ///< pixels per row
    int height;               ///< rows
    cudaTextureObject_t tex;  ///< the reference as a 2-D texture (point sampling, clamp addressing)
};

/// Reference pixels read by plain global loads, the frame edge clamped in software.
struct GlobalRef {
    static constexpr const char* name = "global";  ///< the variant-name part
    /// The pixel at (@p x, @p y), clamped to the frame.
    __device__ static int at(const H264Frame& f, int x, int y) {
        return f.ref[h264_clamp(y, f.height) * f.pitch + h264_clamp(x, f.width)];
    }
};

/// Reference pixels read through the read-only data cache (__ldg), the frame edge clamped in software.
struct LdgRef {
    static constexpr const char* name = "ldg";  ///< the variant-name part
    /// The pixel at (@p x, @p y), clamped to the frame.
    __device__ static int at(const H264Frame& f, int x, int y) {
        return __ldg(f.ref + h264_clamp(y, f.height) * f.pitch + h264_clamp(x, f.width));
    }
};

/// Reference pixels read by the texture unit, whose clamp addressing gives the edge pixels (the paper's
/// choice: 2-D locality and the boundary handled in hardware).
struct TextureRef {
    static constexpr const char* name = "texture";  ///< the variant-name part
    /// The pixel at (@p x, @p y); coordinates outside the frame are clamped by the texture unit.
    __device__ static int at(const H264Frame& f, int x, int y) {
        return tex2D<unsigned char>(f.tex, static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f);
    }
};

/// The SAD loops as written: one vector per thread, the 4x4 loops kept rolled (`#pragma unroll 1`), the
/// current block read from shared memory at every step.
struct Rolled {
    static constexpr int tile = 1;  ///< vectors per thread
    static constexpr bool unrolled = false;  ///< loops kept
};

/// The 4x4 loops completely unrolled, the current block in registers, @p T adjacent vectors per thread
/// (T = 1: unrolling alone; T > 1: register tiling of the vector loop as well).
template <int T>
struct Unrolled {
    static constexpr int tile = T;  ///< vectors per thread
    static constexpr bool unrolled = true;  ///< loops unrolled
};

/// Every 4x4 SAD of the frame: block blockIdx.x (row-major over the 4x4 grid) at every vector of the
/// +-@p range window into @p sad4 (h264_positions(range) per block).
template <class Ref, class Loop>
__global__ void __launch_bounds__(h264_block) ryoo_h264_sad4(const std::uint8_t* __restrict__ cur, H264Frame f, int range,
                                                            std::uint16_t* __restrict__ sad4) {
    __shared__ int block_pixels[16];
    const int w4 = f.width / 4;
    const int b = blockIdx.x;
    const int x0 = (b % w4) * 4, y0 = (b / w4) * 4;
    if (threadIdx.x < 16) block_pixels[threadIdx.x] = cur[(y0 + threadIdx.x / 4) * f.width + x0 + threadIdx.x % 4];
    __syncthreads();
    constexpr int T = Loop::tile;
    const int side = 2 * range + 1;
    const int groups_per_row = (side + T - 1) / T;
    std::uint16_t* out = sad4 + static_cast<long long>(b) * side * side;
    int c[16];
    if constexpr (Loop::unrolled) {
#pragma unroll
        for (int k = 0; k < 16; ++k) c[k] = block_pixels[k];
    }
    for (int g = threadIdx.x; g < side * groups_per_row; g += h264_block) {
        const int row = g / groups_per_row;
        const int col0 = (g % groups_per_row) * T;
        const int y = y0 + row - range, x = x0 + col0 - range;
        if constexpr (!Loop::unrolled) {
            unsigned sad = 0;
#pragma unroll 1
            for (int j = 0; j < 4; ++j) {
#pragma unroll 1
                for (int i = 0; i < 4; ++i) sad += abs(block_pixels[4 * j + i] - Ref::at(f, x + i, y + j));
            }
            out[row * side + col0] = static_cast<std::uint16_t>(sad);
        } else {
            unsigned sad[T];
#pragma unroll
            for (int t = 0; t < T; ++t) sad[t] = 0;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                int r[4 + T - 1];
#pragma unroll
                for (int i = 0; i < 4 + T - 1; ++i) r[i] = Ref::at(f, x + i, y + j);
#pragma unroll
                for (int t = 0; t < T; ++t)
#pragma unroll
                    for (int i = 0; i < 4; ++i) sad[t] += abs(c[4 * j + i] - r[t + i]);
            }
#pragma unroll
            for (int t = 0; t < T; ++t)
                if (col0 + t < side) out[row * side + col0 + t] = static_cast<std::uint16_t>(sad[t]);
        }
    }
}

/// The 8x8 and 16x16 SADs of macroblock blockIdx.y (row-major) at vectors blockIdx.x * h264_block +
/// threadIdx.x, each the sum of four SADs of the next smaller size.
__global__ void __launch_bounds__(h264_block) ryoo_h264_larger(const std::uint16_t* __restrict__ sad4, int width, int positions,
                                                              std::uint16_t* __restrict__ sad8, std::uint16_t* __restrict__ sad16) {
    const int p = blockIdx.x * h264_block + threadIdx.x;
    if (p >= positions) return;
    const int w4 = width / 4, w8 = width / 8, w16 = width / 16;
    const int mx = blockIdx.y % w16, my = blockIdx.y / w16;
    unsigned total = 0;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int x8 = 2 * mx + q % 2, y8 = 2 * my + q / 2;
        const long long a = (static_cast<long long>(2 * y8) * w4 + 2 * x8) * positions + p;
        const long long below = static_cast<long long>(w4) * positions;
        const unsigned s = sad4[a] + sad4[a + positions] + sad4[a + below] + sad4[a + below + positions];
        sad8[(static_cast<long long>(y8) * w8 + x8) * positions + p] = static_cast<std::uint16_t>(s);
        total += s;
    }
    sad16[static_cast<long long>(blockIdx.y) * positions + p] = static_cast<std::uint16_t>(total);
}

}  // namespace ryoo::kernels
