/// @file elimination.cuh
/// @brief One step of the unblocked Gaussian elimination whose row updates are SAXPYs (the paper's SAXPY
/// from HPL inside an elimination routine). The mapping of the SAXPYs to threads is the policy:
/// RowBlocks is the library call per row (one block per row's SAXPY), ColumnTiles the later mapping (a
/// thread keeps the pivot row's element in a register and updates several rows of its column).
///
/// Step k reads column k and row k and writes only columns k+1 .. n of rows k+1 .. n-1, so no thread reads
/// what another writes within a step; every element's arithmetic is elimination_math.hpp's.
#pragma once

#include "ryoo/elimination_math.hpp"

namespace ryoo::kernels {

/// One block of 256 threads per row: the row's SAXPY with a grid-stride loop along the row.
struct RowBlocks {
    static constexpr int threads_x = 256;  ///< threads along the row
    static constexpr int threads_y = 1;    ///< rows per block
    static constexpr int rows_per_thread = 1;  ///< rows each thread updates
};

/// Blocks of 32 x 8 threads; a thread owns one column and updates four rows of it with the pivot row's
/// element held in a register.
struct ColumnTiles {
    static constexpr int threads_x = 32;       ///< threads along a row (one column each)
    static constexpr int threads_y = 8;        ///< threads down the columns
    static constexpr int rows_per_thread = 4;  ///< rows each thread updates
};

/// Step @p k of the elimination of the @p n x (n + 1) row-major matrix @p a (leading dimension @p ld).
template <class Mapping>
__global__ void ryoo_elimination_step(float* __restrict__ a, int n, int ld, int k) {
    const float pivot = a[static_cast<long long>(k) * ld + k];
    const float* pivot_row = a + static_cast<long long>(k) * ld;
    if constexpr (Mapping::threads_y == 1) {
        const int i = k + 1 + blockIdx.x;
        float* row = a + static_cast<long long>(i) * ld;
        const float l = elimination_multiplier(row[k], pivot);
        for (int j = k + 1 + threadIdx.x; j <= n; j += Mapping::threads_x) row[j] = elimination_update(l, pivot_row[j], row[j]);
    } else {
        const int j = k + 1 + blockIdx.x * Mapping::threads_x + threadIdx.x;
        if (j > n) return;
        const float x = pivot_row[j];
        const int first = k + 1 + (blockIdx.y * Mapping::threads_y + threadIdx.y) * Mapping::rows_per_thread;
#pragma unroll
        for (int r = 0; r < Mapping::rows_per_thread; ++r) {
            const int i = first + r;
            if (i >= n) break;
            float* row = a + static_cast<long long>(i) * ld;
            row[j] = elimination_update(elimination_multiplier(row[k], pivot), x, row[j]);
        }
    }
}

}  // namespace ryoo::kernels
