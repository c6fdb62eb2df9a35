/// @file register_tiled_gemm.cuh
/// @brief The steps beyond 2008: one kernel template in which each thread keeps an 8 x 8 block of C in
/// registers, with one policy per optimisation: how tiles are loaded from global memory (scalar or 128-bit),
/// how many shared-memory stages there are (one, or two so that loading overlaps computing), and how
/// threads are laid over the block's tile (in rows of the block, or in warp tiles).
///
/// A block of 256 threads computes a 128 x 128 tile of C in steps of 8 along k. A is stored transposed in
/// shared memory (k-major), so that a thread reads its 8 values of A and its 8 values of B for one k as
/// two 128-bit loads each; then it does 64 fused multiply-adds.
#pragma once

#include "ryoo/point_math.hpp"

namespace ryoo::kernels {

/// The block tile of the register-tiled kernel.
struct BlockTile {
    static constexpr int m = 128;       ///< rows of C per block
    static constexpr int n = 128;       ///< columns of C per block
    static constexpr int k = 8;         ///< depth of one shared-memory step
    static constexpr int threads = 256; ///< threads per block
    static constexpr int per_thread = 8;///< rows (and columns) of C per thread
};

/// The values one thread moves from global to shared memory per step: 4 of the A tile, 4 of the B tile.
struct Staged {
    float a[4];  ///< A values, in the order the load policy fetched them
    float b[4];  ///< B values, in the order the load policy fetched them
};

/// Global loads of one float each: 4 strided loads of A and of B per thread (every warp still reads whole
/// 32-byte sectors).
struct ScalarLoad {
    /// Reads this thread's share of the A tile (rows of @p a_rows, columns k0..k0+7) and the B tile.
    __device__ static void fetch(Staged& s, const float* a_rows, const float* b_cols, int n, int k0) {
        const int t = threadIdx.x;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int e = t + i * BlockTile::threads;
            s.a[i] = a_rows[static_cast<long long>(e / BlockTile::k) * n + k0 + e % BlockTile::k];
            s.b[i] = b_cols[static_cast<long long>(k0 + e / BlockTile::n) * n + e % BlockTile::n];
        }
    }
    /// Writes what fetch() read into the shared tiles (A transposed).
    __device__ static void store(const Staged& s, float (*as)[BlockTile::m], float (*bs)[BlockTile::n]) {
        const int t = threadIdx.x;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int e = t + i * BlockTile::threads;
            as[e % BlockTile::k][e / BlockTile::k] = s.a[i];
            bs[e / BlockTile::n][e % BlockTile::n] = s.b[i];
        }
    }
};

/// Global loads of 128 bits: one float4 of A and one of B per thread per step.
struct VectorLoad {
    /// Reads this thread's float4 of the A tile and of the B tile.
    __device__ static void fetch(Staged& s, const float* a_rows, const float* b_cols, int n, int k0) {
        const int t = threadIdx.x;
        const int a_row = t / 2, a_col = (t % 2) * 4;
        const float4 av = *reinterpret_cast<const float4*>(a_rows + static_cast<long long>(a_row) * n + k0 + a_col);
        const int b_row = t / 32, b_col = (t % 32) * 4;
        const float4 bv = *reinterpret_cast<const float4*>(b_cols + static_cast<long long>(k0 + b_row) * n + b_col);
        s.a[0] = av.x, s.a[1] = av.y, s.a[2] = av.z, s.a[3] = av.w;
        s.b[0] = bv.x, s.b[1] = bv.y, s.b[2] = bv.z, s.b[3] = bv.w;
    }
    /// Writes the A values transposed (four scalar stores) and the B values as one float4.
    __device__ static void store(const Staged& s, float (*as)[BlockTile::m], float (*bs)[BlockTile::n]) {
        const int t = threadIdx.x;
        const int a_row = t / 2, a_col = (t % 2) * 4;
#pragma unroll
        for (int i = 0; i < 4; ++i) as[a_col + i][a_row] = s.a[i];
        const int b_row = t / 32, b_col = (t % 32) * 4;
        *reinterpret_cast<float4*>(&bs[b_row][b_col]) = make_float4(s.b[0], s.b[1], s.b[2], s.b[3]);
    }
};

/// Where a thread's 8 x 8 block of C lies in the block's tile: rows base_row + {0..3} and base_row +
/// row_stride + {0..3}, and likewise for columns.
struct ThreadPlace {
    int row;         ///< first row (within the block's tile)
    int row_stride;  ///< distance from the first group of 4 rows to the second
    int col;         ///< first column
    int col_stride;  ///< distance from the first group of 4 columns to the second
};

// [layouts-begin]
/// Threads in row-major order over a 16 x 16 grid of 8 x 8 blocks: simple, but the 16 threads of a half-warp
/// read B values 32 bytes apart (bank conflicts) and a warp spans the whole tile width.
struct BlockLayout {
    /// This thread's place.
    __device__ static ThreadPlace place() {
        const int t = threadIdx.x;
        return {(t / 16) * 8, 4, (t % 16) * 8, 4};
    }
};

/// Warp tiling: the 8 warps form a 2 x 4 grid of 64 x 32 warp tiles; in each, the 32 lanes form an 8 x 4
/// grid of 4 x 4 blocks, repeated 2 x 2 times. A warp's reads of a k row of A touch 8 float4 values and of B
/// 4 (no bank conflicts), and a warp's data is a compact tile.
struct WarpLayout {
    /// This thread's place.
    __device__ static ThreadPlace place() {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        return {(warp / 4) * 64 + (lane / 4) * 4, 32, (warp % 4) * 32 + (lane % 4) * 4, 16};
    }
};
// [layouts-end]

/// One shared-memory buffer per operand: load, wait, compute, wait.
struct SingleBuffer {
    static constexpr int stages = 1;  ///< shared-memory buffers per operand
};

/// Two buffers per operand: the next step's values are fetched into registers before the current step is
/// computed and stored into the other buffer after it, with one barrier per step.
struct DoubleBuffer {
    static constexpr int stages = 2;  ///< shared-memory buffers per operand
};

// [step-begin]
/// The 64 multiply-adds of one k row: this thread's 8 values of A times its 8 values of B.
__device__ inline void multiply_step(float (&acc)[8][8], const float* as_k, const float* bs_k, const ThreadPlace& p) {
    float av[8], bv[8];
    const float4 a0 = *reinterpret_cast<const float4*>(as_k + p.row);
    const float4 a1 = *reinterpret_cast<const float4*>(as_k + p.row + p.row_stride);
    const float4 b0 = *reinterpret_cast<const float4*>(bs_k + p.col);
    const float4 b1 = *reinterpret_cast<const float4*>(bs_k + p.col + p.col_stride);
    av[0] = a0.x, av[1] = a0.y, av[2] = a0.z, av[3] = a0.w, av[4] = a1.x, av[5] = a1.y, av[6] = a1.z, av[7] = a1.w;
    bv[0] = b0.x, bv[1] = b0.y, bv[2] = b0.z, bv[3] = b0.w, bv[4] = b1.x, bv[5] = b1.y, bv[6] = b1.z, bv[7] = b1.w;
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = multiply_add(av[i], bv[j], acc[i][j]);
}
// [step-end]

/// The register-tiled kernel. @tparam Load ScalarLoad or VectorLoad; @tparam Buffers SingleBuffer or
/// DoubleBuffer; @tparam Layout BlockLayout or WarpLayout. n must be a multiple of 128 (the host pads).
template <class Load, class Buffers, class Layout>
__global__ void __launch_bounds__(BlockTile::threads)
    ryoo_register_tiled_gemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    constexpr int S = Buffers::stages;
    __shared__ __align__(16) float as[S][BlockTile::k][BlockTile::m];
    __shared__ __align__(16) float bs[S][BlockTile::k][BlockTile::n];
    const float* a_rows = a + static_cast<long long>(blockIdx.y) * BlockTile::m * n;
    const float* b_cols = b + static_cast<long long>(blockIdx.x) * BlockTile::n;
    const ThreadPlace p = Layout::place();
    float acc[8][8] = {};
    Staged staged;
// [stages-begin]
    if constexpr (S == 1) {
        for (int k0 = 0; k0 < n; k0 += BlockTile::k) {
            Load::fetch(staged, a_rows, b_cols, n, k0);
            Load::store(staged, as[0], bs[0]);
            __syncthreads();
#pragma unroll
            for (int k = 0; k < BlockTile::k; ++k) multiply_step(acc, as[0][k], bs[0][k], p);
            __syncthreads();
        }
    } else {
        Load::fetch(staged, a_rows, b_cols, n, 0);
        Load::store(staged, as[0], bs[0]);
        __syncthreads();
        int current = 0;
        for (int k0 = 0; k0 < n; k0 += BlockTile::k) {
            const bool more = k0 + BlockTile::k < n;
            if (more) Load::fetch(staged, a_rows, b_cols, n, k0 + BlockTile::k);
#pragma unroll
            for (int k = 0; k < BlockTile::k; ++k) multiply_step(acc, as[current][k], bs[current][k], p);
            // The other buffer was last read in the previous step, which the previous barrier closed.
            if (more) Load::store(staged, as[current ^ 1], bs[current ^ 1]);
            __syncthreads();
            current ^= 1;
        }
    }
// [stages-end]
    float* c_tile = c + static_cast<long long>(blockIdx.y) * BlockTile::m * n + static_cast<long long>(blockIdx.x) * BlockTile::n;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = p.row + (i / 4) * p.row_stride + i % 4;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int col = p.col + half * p.col_stride;
            *reinterpret_cast<float4*>(c_tile + static_cast<long long>(row) * n + col) =
                make_float4(acc[i][half * 4], acc[i][half * 4 + 1], acc[i][half * 4 + 2], acc[i][half * 4 + 3]);
        }
    }
}

}  // namespace ryoo::kernels
