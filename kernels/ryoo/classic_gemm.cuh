/// @file classic_gemm.cuh
/// @brief The paper's matrix-multiplication ladder: the naive kernel (V0) and one tiled kernel template
/// whose policies are the steps V1 (tiling), V2 (complete unrolling of the inner loop), V3 (prefetching)
/// and the residency emulation of the paper's register cliff.
///
/// Every thread computes one element of C, as in the paper. A tiled variant's name is composed from its
/// policies, so that two variants differ exactly in the policy their names differ in.
#pragma once

#include "ryoo/point_math.hpp"

namespace ryoo::kernels {

// ---- V0 -----------------------------------------------------------------------------------------------

/// V0: one thread per element of C, both operands read from global memory in the k loop. The loop is kept
/// rolled (the paper's code, whose instruction mix its analysis counts); blocks of 16 x 16 threads.
// [naive-begin]
__global__ void ryoo_naive_gemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                int n) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0;
#pragma unroll 1
    for (int k = 0; k < n; ++k) acc = multiply_add(a[row * n + k], b[k * n + col], acc);
    c[row * n + col] = acc;
}
// [naive-end]

// ---- policies of the tiled kernel -----------------------------------------------------------------------

/// The tile edge T: a block of T x T threads computes a T x T tile of C through T x T tiles of A and B in
/// shared memory.
template <int T>
struct Tile {
    static constexpr int size = T;  ///< tile edge (threads per block: size * size)
};

// [rolled-begin]
/// V1's inner loop over the tile, kept rolled (`#pragma unroll 1`: nvcc would otherwise unroll a loop of
/// constant trip count by itself, and V1 would be V2).
struct RolledLoop {
    /// acc + sum over i of as_row[i] * bs[i][col], one iteration per i.
    template <int T>
    __device__ static float dot(const float* as_row, const float (*bs)[T], int col, float acc) {
#pragma unroll 1
        for (int i = 0; i < T; ++i) acc = multiply_add(as_row[i], bs[i][col], acc);
        return acc;
    }
};
// [rolled-end]

// [unrolled-begin]
/// V2: the inner loop written out completely: constant shared-memory offsets, no branch, no induction variable.
struct UnrolledLoop {
    /// acc + sum over i of as_row[i] * bs[i][col], fully unrolled.
    template <int T>
    __device__ static float dot(const float* as_row, const float (*bs)[T], int col, float acc) {
#pragma unroll
        for (int i = 0; i < T; ++i) acc = multiply_add(as_row[i], bs[i][col], acc);
        return acc;
    }
};
// [unrolled-end]

// [direct-begin]
/// V1/V2: each step loads its A and B elements into shared memory, waits, computes, waits.
struct DirectLoad {
    /// The dot product of this thread's row of A and column of B over all tiles.
    template <int T, class Loop>
    __device__ static float run(const float* a, const float* b, int n, float (*as)[T], float (*bs)[T]) {
        const int tx = threadIdx.x, ty = threadIdx.y;
        float acc = 0;
        for (int k0 = 0; k0 < n; k0 += T) {
            as[ty][tx] = a[k0];
            bs[ty][tx] = b[static_cast<long long>(k0) * n];
            __syncthreads();
            acc = Loop::template dot<T>(as[ty], bs, tx, acc);
            __syncthreads();
        }
        return acc;
    }
};
// [direct-end]

// [prefetch-begin]
/// V3: the next tiles' elements are loaded into registers before the current tile is computed, so that
/// their latency overlaps the arithmetic (two more registers per thread).
struct PrefetchLoad {
    /// The dot product of this thread's row of A and column of B over all tiles.
    template <int T, class Loop>
    __device__ static float run(const float* a, const float* b, int n, float (*as)[T], float (*bs)[T]) {
        const int tx = threadIdx.x, ty = threadIdx.y;
        float acc = 0;
        float a_next = a[0], b_next = b[0];
        for (int k0 = 0; k0 < n; k0 += T) {
            as[ty][tx] = a_next;
            bs[ty][tx] = b_next;
            __syncthreads();
            if (k0 + T < n) {
                a_next = a[k0 + T];
                b_next = b[static_cast<long long>(k0 + T) * n];
            }
            acc = Loop::template dot<T>(as[ty], bs, tx, acc);
            __syncthreads();
        }
        return acc;
    }
};
// [prefetch-end]

/// Blocks resident per SM as the hardware allows (registers, shared memory, threads, blocks).
struct FreeResidency {
    static constexpr int blocks_per_sm = 0;  ///< 0: no limit imposed
};

/// The G80's situation on a large GPU: unused dynamic shared memory per block (ballast) sized so that
/// exactly @p Blocks blocks fit on an SM. Blocks = 3 is the G80's 768 threads of 256-thread blocks; Blocks =
/// 2 is what one register more per thread cost there (the paper's register cliff).
template <int Blocks>
struct G80Residency {
    static constexpr int blocks_per_sm = Blocks;  ///< blocks per SM the ballast leaves room for
};

// ---- the tiled kernel -----------------------------------------------------------------------------------

/// V1-V3: a T x T block computes a T x T tile of C, staging T x T tiles of A and B through shared memory.
/// @tparam TileP a Tile; @tparam Loop RolledLoop or UnrolledLoop; @tparam Load DirectLoad or PrefetchLoad;
/// @tparam Residency FreeResidency or G80Residency (the ballast is dynamic shared memory the launch adds).
/// n must be a multiple of T (the host pads with zeros).
// [tiled-begin]
template <class TileP, class Loop, class Load, class Residency>
__global__ void ryoo_tiled_gemm(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                int n) {
    constexpr int T = TileP::size;
    __shared__ float as[T][T];
    __shared__ float bs[T][T];
    const int row = blockIdx.y * T + threadIdx.y;
    const int col = blockIdx.x * T + threadIdx.x;
    // This thread's element of each A tile walks along its row; its element of each B tile down its column.
    const float* a_walk = a + static_cast<long long>(row) * n + threadIdx.x;
    const float* b_walk = b + static_cast<long long>(threadIdx.y) * n + col;
    const float acc = Load::template run<T, Loop>(a_walk, b_walk, n, as, bs);
    c[static_cast<long long>(row) * n + col] = acc;
}
// [tiled-end]

// ---- redundant-load and common-subexpression elimination (S1 section 5.2) ------------------------------------

/// A coordinate of the thread or its block read from its special register by a volatile instruction: the compiler
/// can neither keep it in a register across uses (redundant-load elimination) nor share the arithmetic built on it
/// (common-subexpression elimination); each use reads it again.
#define RYOO_SPECIAL_REGISTER(fn, reg)                                   \
    __device__ __forceinline__ int fn() {                                \
        int v;                                                           \
        asm volatile("mov.u32 %0, %%" reg ";" : "=r"(v));                \
        return v;                                                        \
    }
RYOO_SPECIAL_REGISTER(reloaded_tid_x, "tid.x")
RYOO_SPECIAL_REGISTER(reloaded_tid_y, "tid.y")
RYOO_SPECIAL_REGISTER(reloaded_ctaid_x, "ctaid.x")
RYOO_SPECIAL_REGISTER(reloaded_ctaid_y, "ctaid.y")
#undef RYOO_SPECIAL_REGISTER

/// V2 without the elimination of redundant loads and common subexpressions: the thread and block coordinates are
/// read again for every tile and every address is formed anew from them, where ryoo_tiled_gemm forms the walks
/// through A and B once and keeps them (and the coordinates) in registers. The same loads, products and sums in
/// the same order: the pair differs only in what the compiler may keep live (S1: "common subexpression
/// elimination and redundant load elimination, the latter often storing thread and block coordinates in
/// registers" raise the registers per thread and can cost a resident block).
// [reload-begin]
template <class TileP, class Loop>
__global__ void ryoo_tiled_gemm_reload(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                       int n) {
    constexpr int T = TileP::size;
    __shared__ float as[T][T];
    __shared__ float bs[T][T];
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += T) {
        as[reloaded_tid_y()][reloaded_tid_x()] =
            a[static_cast<long long>(reloaded_ctaid_y() * T + reloaded_tid_y()) * n + k0 + reloaded_tid_x()];
        bs[reloaded_tid_y()][reloaded_tid_x()] =
            b[static_cast<long long>(k0 + reloaded_tid_y()) * n + reloaded_ctaid_x() * T + reloaded_tid_x()];
        __syncthreads();
        acc = Loop::template dot<T>(as[reloaded_tid_y()], bs, reloaded_tid_x(), acc);
        __syncthreads();
    }
    c[static_cast<long long>(reloaded_ctaid_y() * T + reloaded_tid_y()) * n + reloaded_ctaid_x() * T + reloaded_tid_x()] = acc;
}
// [reload-end]

}  // namespace ryoo::kernels
