/// @file tpacf.cuh
/// @brief The two-point angular correlation histograms (DD, DR, RR): one kernel template whose policies
/// are where a block keeps its histograms, where it reads the bin edges and how much of the second set a
/// block pairs its points with.
///
/// Each thread takes one point of the first set and pairs it with every point of the second, which a block
/// stages through shared memory 256 points at a time; each pair's slot (tpacf_math.hpp) is counted in a
/// histogram in shared memory, and at the end the block adds its histograms to the global one. The paper's
/// kernel kept many sub-histograms per block, so that threads counting the same bin collide less, at the
/// price of shared memory, which limited the resident threads of the G80: the sub-histogram count is the
/// policy that trades one against the other.
#pragma once

#include "ryoo/tpacf_math.hpp"

namespace ryoo::kernels {

/// The bin-edge cosines and their count (set by set_tpacf_edges; this header is compiled in one file only,
/// tpacf_variants.cu, which owns them).
__constant__ float ryoo_tpacf_edges[tpacf_max_slots];
__constant__ int ryoo_tpacf_edge_count;  ///< how many of ryoo_tpacf_edges are in use

/// Threads of a block, and points of the second set per shared-memory tile.
inline constexpr int tpacf_block = 256;
/// Words of one histogram in shared memory: the slots, padded to 33 so that histograms start in different banks.
inline constexpr int tpacf_row = tpacf_max_slots + 1;

/// @p H sub-histograms per block; thread t counts in sub-histogram t mod H with a shared-memory atomic.
template <int H>
struct SubHistograms {
    static constexpr int count = H;  ///< histograms per block
    /// Counts slot @p slot (< 0: no pair) of the calling thread.
    __device__ static void add(unsigned (*hist)[tpacf_row], int slot) {
        if (slot >= 0) atomicAdd(&hist[threadIdx.x % H][slot], 1u);
    }
};

/// One histogram per warp; the lanes that found the same slot are counted by one atomic of their leader
/// (__match_any_sync), so that collisions within a warp cost one update instead of many.
struct WarpAggregated {
    static constexpr int count = tpacf_block / 32;  ///< histograms per block: one per warp
    /// Counts slot @p slot (< 0: no pair) of the calling thread, one atomic per distinct slot of the warp.
    __device__ static void add(unsigned (*hist)[tpacf_row], int slot) {
        const unsigned peers = __match_any_sync(0xffffffffu, slot);
        const int lane = threadIdx.x % 32;
        if (slot >= 0 && lane == __ffs(peers) - 1) atomicAdd(&hist[threadIdx.x / 32][slot], static_cast<unsigned>(__popc(peers)));
    }
};

/// The bin edges read from constant memory by the binary search (the paper's choice: the lanes of a warp
/// look at different edges, so the constant cache serialises them).
struct ConstantEdges {
    static constexpr bool shared = false;  ///< the edges stay in constant memory
};
/// The bin edges copied to shared memory first (lanes reading different edges read different banks).
struct SharedEdges {
    static constexpr bool shared = true;  ///< the edges are copied to shared memory
};

/// Each block pairs its points with the whole second set (the paper's shape: one block per 256 points of
/// the first set, so a set of a few thousand points occupies a few dozen blocks).
struct WholeSet {
    static constexpr bool split = false;  ///< one block column: the whole second set per block
};
/// The second set split into chunks, blockIdx.y picking one, so that a small first set still launches
/// enough blocks to fill every SM; each block adds its own partial histograms to the global ones.
struct SplitSet {
    static constexpr bool split = true;  ///< blockIdx.y selects a chunk of the second set
};

/// Adds to @p histogram the slot of every pair (a_i, b_j), or of every pair i < j when @p self.
/// With Grid = SplitSet, block row blockIdx.y pairs only points [blockIdx.y chunk, (blockIdx.y + 1) chunk) of
/// the second set (@p chunk a multiple of tpacf_block); with WholeSet @p chunk is ignored.
template <class Hist, class Edges, class Grid = WholeSet>
__global__ void __launch_bounds__(tpacf_block) ryoo_tpacf(const float4* __restrict__ a, int na, const float4* __restrict__ b,
                                                          int nb, int self, int chunk, unsigned long long* __restrict__ histogram) {
    __shared__ float4 tile[tpacf_block];
    __shared__ unsigned hist[Hist::count][tpacf_row];
    __shared__ float shared_edges[Edges::shared ? tpacf_max_slots : 1];
    const int edges = ryoo_tpacf_edge_count;
    for (int s = threadIdx.x; s < Hist::count * tpacf_row; s += tpacf_block) (&hist[0][0])[s] = 0;
    if constexpr (Edges::shared)
        for (int s = threadIdx.x; s < edges; s += tpacf_block) shared_edges[s] = ryoo_tpacf_edges[s];
    const int i = blockIdx.x * tpacf_block + threadIdx.x;
    const float4 p = i < na ? a[i] : make_float4(0, 0, 0, 0);
    // [split-begin]
    const int j_begin = Grid::split ? static_cast<int>(blockIdx.y) * chunk : 0;
    const int j_end = Grid::split ? min(nb, j_begin + chunk) : nb;
    // With self pairs (i < j) a block starts at its own first point: earlier tiles hold only j < i.
    for (int j0 = self ? max(j_begin, static_cast<int>(blockIdx.x) * tpacf_block) : j_begin; j0 < j_end; j0 += tpacf_block) {
        __syncthreads();  // the previous tile is consumed (and the histograms are cleared)
        if (j0 + static_cast<int>(threadIdx.x) < j_end) tile[threadIdx.x] = b[j0 + threadIdx.x];
        __syncthreads();
        const int m = min(tpacf_block, j_end - j0);
        // [split-end]
        for (int jj = 0; jj < m; ++jj) {
            const int j = j0 + jj;
            const float4 q = tile[jj];
            int slot = -1;
            if (i < na && (!self || j > i)) {
                const float d = tpacf_dot(p.x, p.y, p.z, q.x, q.y, q.z);
                if constexpr (Edges::shared) slot = tpacf_slot(d, shared_edges, edges);
                else slot = tpacf_slot(d, ryoo_tpacf_edges, edges);
            }
            Hist::add(hist, slot);
        }
    }
    __syncthreads();
    for (int s = threadIdx.x; s <= edges; s += tpacf_block) {
        unsigned long long sum = 0;
        for (int h = 0; h < Hist::count; ++h) sum += hist[h][s];
        if (sum) atomicAdd(&histogram[s], sum);
    }
}

}  // namespace ryoo::kernels
