/// @file lbm.cuh
/// @brief The LBM stream-and-collide step: one kernel template whose policies are the layout of the 19
/// distributions per cell and how a block loads them. One launch per time step: each step reads what the
/// previous one pushed to the neighbours, and only the end of a launch makes it visible to every block.
///
/// Thread t of block b takes cell b * lbm_block + t (x fastest), loads its 19 distributions, collides them
/// (lbm_math.hpp) and pushes direction i to the neighbour at c_i. With the array of structures a warp's load
/// of one direction touches 32 cells 76 bytes apart, one memory request each (the paper's Figure 5a); staged,
/// the block first copies its cells' contiguous 19 * lbm_block floats into shared memory with consecutive
/// threads reading consecutive words (Figure 5b), then each thread reads its own cell there. With the
/// structure of arrays one direction of consecutive cells is contiguous in memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ryoo/lbm_math.hpp"

namespace ryoo::kernels {

/// Threads (cells) of a block.
inline constexpr int lbm_block = 128;

/// The distributions cell after cell, the 19 of a cell together (the original's array of structures).
struct CellMajor {
    static constexpr bool soa = false;  ///< array of structures
    /// Where direction @p i of cell @p c lies in a lattice of @p cells cells.
    __device__ static std::size_t at(std::size_t c, int i, std::size_t) { return c * lbm_q + i; }
};
/// The distributions direction after direction (structure of arrays).
struct DirectionMajor {
    static constexpr bool soa = true;  ///< structure of arrays
    /// Where direction @p i of cell @p c lies in a lattice of @p cells cells.
    __device__ static std::size_t at(std::size_t c, int i, std::size_t cells) { return i * cells + c; }
};

/// Each thread loads its own distributions from global memory.
struct DirectLoad {
    static constexpr bool staged = false;  ///< no shared-memory staging
};
/// The block copies its cells' distributions into shared memory first, in contiguous words (cell-major only).
struct StagedLoad {
    static constexpr bool staged = true;  ///< loads staged through shared memory
};

/// One stream-and-collide step from @p src to @p dst (layout @p Layout), loads as @p Load says.
template <class Layout, class Load>
__global__ void __launch_bounds__(lbm_block)
    ryoo_lbm(const float* __restrict__ src, float* __restrict__ dst, const std::uint8_t* __restrict__ flags, int nx, int ny, int nz,
             float omega, float lid_velocity) {
    static_assert(!(Load::staged && Layout::soa), "staging serves the cell-major layout only");
    __shared__ float tile[Load::staged ? lbm_block * lbm_q : 1];
    const std::size_t cells = static_cast<std::size_t>(nx) * ny * nz;
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * lbm_block;
    const std::size_t c = first + threadIdx.x;
    float f[lbm_q];
    if constexpr (Load::staged) {
        const std::size_t words = (cells - first < lbm_block ? cells - first : lbm_block) * lbm_q;
        for (std::size_t w = threadIdx.x; w < words; w += lbm_block) tile[w] = src[first * lbm_q + w];
        __syncthreads();
        if (c >= cells) return;
#pragma unroll
        for (int i = 0; i < lbm_q; ++i) f[i] = tile[threadIdx.x * lbm_q + i];
    } else {
        if (c >= cells) return;
#pragma unroll
        for (int i = 0; i < lbm_q; ++i) f[i] = src[Layout::at(c, i, cells)];
    }
    float out[lbm_q];
    lbm_collide(f, out, flags[c], omega, lid_velocity);
    const int x = static_cast<int>(c % nx), y = static_cast<int>(c / nx % ny), z = static_cast<int>(c / nx / ny);
#pragma unroll
    for (int i = 0; i < lbm_q; ++i) {
        const std::size_t n = (static_cast<std::size_t>(lbm_wrap(z, lbm_cz(i), nz)) * ny + lbm_wrap(y, lbm_cy(i), ny)) * nx +
                              lbm_wrap(x, lbm_cx(i), nx);
        dst[Layout::at(n, i, cells)] = out[i];
    }
}

}  // namespace ryoo::kernels
