/// @file rpes.cuh
/// @brief RPES: the Coulomb contraction J_ab = sum_cd (ab|cd) D_cd of s-type primitive pairs, one kernel
/// template whose policies are where the ket pairs are read and where the fit table of the one-root Rys
/// weight is read.
///
/// Each thread takes one bra pair and sums over a chunk of rpes_chunk ket pairs (blockIdx.y picks the
/// chunk, so that the launch fills the GPU), in a single-precision register; the chunk's sum times the bra
/// factor is added to J with one atomic. Every quartet is rpes_quartet (rpes_math.hpp): about thirty
/// instructions, no global traffic besides the ket pair, so the kernel is bound by instruction issue.
#pragma once

#include <cuda_runtime.h>

#include "ryoo/cpu/rpes.hpp"
#include "ryoo/rpes_math.hpp"

namespace ryoo::kernels {

/// Threads per block.
inline constexpr int rpes_block = 128;

/// The fit table (set by set_rpes_table; this header is compiled in one file only, rpes_variants.cu).
__constant__ float ryoo_rpes_table[rpes_table_size];

/// Ket pairs read from global memory at every quartet (every lane of a warp reads the same ket: one
/// broadcast load through L1).
struct GlobalKets {
    static constexpr bool staged = false;  ///< no shared-memory tile
};
/// Ket pairs staged in shared memory rpes_block at a time by the whole block, then read from there.
struct SharedKets {
    static constexpr bool staged = true;  ///< tiles of kets in shared memory
};

/// The fit table read from constant memory (lanes whose T fall in different intervals read different
/// words, which the constant cache serves one after another).
struct ConstantTable {
    static constexpr bool shared = false;  ///< the table stays in constant memory
};
/// The fit table copied to shared memory at the start of the block.
struct SharedTable {
    static constexpr bool shared = true;  ///< the table is copied to shared memory
};

/// Reads float i of the table at @p base (constant or shared memory, resolved at compile time).
struct TableAt {
    const float* base;  ///< the table
    /// Float @p i of the table.
    __device__ float operator()(int i) const { return base[i]; }
};

/// Adds k_ab times the sum over kets [blockIdx.y rpes_chunk, + rpes_chunk) of kd_cd F0(T) / sqrt(p + q) to
/// J[ab] for bra ab = blockIdx.x rpes_block + threadIdx.x.
template <class Kets, class Table>
__global__ void __launch_bounds__(rpes_block) ryoo_rpes(const float4* __restrict__ geometry, const float* __restrict__ k,
                                                       const float* __restrict__ kd, int m, float* __restrict__ j) {
    __shared__ float table[Table::shared ? rpes_table_size : 1];
    __shared__ float4 tile_geometry[Kets::staged ? rpes_block : 1];
    __shared__ float tile_kd[Kets::staged ? rpes_block : 1];
    if constexpr (Table::shared)
        for (int i = threadIdx.x; i < rpes_table_size; i += rpes_block) table[i] = ryoo_rpes_table[i];
    const TableAt coef{Table::shared ? table : ryoo_rpes_table};
    const int bra = blockIdx.x * rpes_block + threadIdx.x;
    const float4 p = bra < m ? geometry[bra] : make_float4(0, 0, 0, 1);
    const int c0 = blockIdx.y * rpes_chunk;
    const int c1 = min(m, c0 + rpes_chunk);
    float sum = 0;
    if constexpr (Kets::staged) {
        for (int t0 = c0; t0 < c1; t0 += rpes_block) {
            __syncthreads();  // the previous tile is consumed (and the table copied)
            if (t0 + static_cast<int>(threadIdx.x) < c1) {
                tile_geometry[threadIdx.x] = geometry[t0 + threadIdx.x];
                tile_kd[threadIdx.x] = kd[t0 + threadIdx.x];
            }
            __syncthreads();
            const int n = min(rpes_block, c1 - t0);
            for (int c = 0; c < n; ++c) {
                const float4 q = tile_geometry[c];
                sum = fmaf(tile_kd[c], rpes_quartet(p.x, p.y, p.z, p.w, q.x, q.y, q.z, q.w, coef), sum);
            }
        }
    } else {
        if constexpr (Table::shared) __syncthreads();
        for (int c = c0; c < c1; ++c) {
            const float4 q = geometry[c];
            sum = fmaf(kd[c], rpes_quartet(p.x, p.y, p.z, p.w, q.x, q.y, q.z, q.w, coef), sum);
        }
    }
    if (bra < m) atomicAdd(&j[bra], k[bra] * sum);
}

}  // namespace ryoo::kernels
