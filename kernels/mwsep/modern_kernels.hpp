/// @file modern_kernels.hpp
/// @brief The modern kernel family as its host sees it: the device data of one area (or of one device's
/// slice of it), the fixed reduction chunks, and per variant the function that queues its kernels.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "kernel_set.hpp"
#include "mwsep/math/exp_table.hpp"
#include "tidal_streams.hpp"

namespace mwsep::cuda {

/// Device buffers of one area at one precision for the modern kernels (owned by the family's DeviceMemory).
template <class Real>
struct ModernBuffers : CellDirections<Real> {
    /// Every point of a line of sight, r-major (FoldedLineOfSight::r_point).
    Real* folded_r = nullptr;
    /// Their folded weights (FoldedLineOfSight::weight).
    Real* folded_w = nullptr;
    /// Per nu bin: sin(nu_hi) - sin(nu_lo).
    Real* ids = nullptr;
    /// Per component, piece and cell: the piece's integral [(c * r_pieces + piece) * padded + p].
    Real* cell_out = nullptr;
};

/// The modern variants reduce each component's cells in this many fixed chunks of consecutive cells; the
/// chunk boundaries depend only on the cell count, so the result does not depend on the launch
/// configuration or on how many devices share the area.
inline constexpr int reduction_chunks = 1024;
/// Cells per reduction chunk: chunk i holds the cells [i * chunk_cells, (i + 1) * chunk_cells) below @p cells.
__host__ __device__ inline int chunk_cells(int cells) { return (cells + reduction_chunks - 1) / reduction_chunks; }

/// One area's grid sizes, the part of it one device reduces, and its buffers (only those of the precision
/// in use are allocated).
struct ModernArea : AreaGrid {
    /// Per stream: the skipping threshold (likelihood/stream_skipping.hpp).
    double skip_threshold[max_streams] = {};
    /// Pieces of a line of sight, one thread each (modern_r_pieces()).
    int r_pieces = 1;
    /// First reduction chunk of this device's slice; cells are mu-major, so a slice is a range of mu rows.
    int first_chunk = 0;
    /// One past the last reduction chunk of this device's slice (see chunk_cells()).
    int last_chunk = 0;
    /// Device: per component c and reduction chunk i, the chunk's compensated sum and its compensation
    /// at [(c * reduction_chunks + i) * 2 + 0/1].
    double* partials = nullptr;
    /// Device: the table of math::exp_from_steps().
    const math::ExpTableEntry* exp_table = nullptr;
    /// Device: per r bin, the sum of its folded weights.
    double* block_weight = nullptr;
    /// Device: per r bin, its smallest point distance.
    double* block_r_min = nullptr;
    /// Device: per r bin, its largest point distance.
    double* block_r_max = nullptr;
    /// Double precision only, for the lean variants (lean.cu): every point's (r, w) interleaved, r-major.
    const double2* folded_rw = nullptr;
    /// Double precision only: the table of math::exp_biased() (ExpTableBiased).
    const math::ExpTableEntry* exp_table_biased = nullptr;
    /// Double precision only: the table of math::exp_table8() (ExpTable8).
    const double* exp_table8 = nullptr;
    /// Double precision only: per r bin k and group g of its points (lean_groups groups of consecutive
    /// points, group g holding [g n_conv / lean_groups, (g + 1) n_conv / lean_groups)), at k * lean_groups + g:
    /// the sum of the group's folded weights.
    double* group_weight = nullptr;
    /// Double precision only: per r bin and group, the natural logarithm of group_weight.
    double* group_log_weight = nullptr;
    /// Double precision only: per r bin and group, its smallest point distance.
    double* group_r_min = nullptr;
    /// Double precision only: per r bin and group, its largest point distance.
    double* group_r_max = nullptr;
    /// Double precision only: the smallest distance of the whole line of sight.
    double los_r_min = 0;
    /// Double precision only: the largest distance of the whole line of sight.
    double los_r_max = 0;
    /// Buffers of modern-f64.
    ModernBuffers<double> f64;
    /// Buffers of modern-f32.
    ModernBuffers<float> f32;
    /// The first cell of this slice: its first reduction chunk's, or the cell count for an empty slice.
    int first_cell() const { return std::min(cells, first_chunk * chunk_cells(cells)); }
    /// One past the last cell of this slice (its last chunk's end, at most the cell count).
    int last_cell() const { return std::min(cells, last_chunk * chunk_cells(cells)); }
    /// The buffers of precision Real.
    template <class Real>
    const ModernBuffers<Real>& buffers() const {
        if constexpr (sizeof(Real) == 8) return f64;
        else return f32;
    }
};


/// Pieces the modern kernels split each line of sight into, one thread per cell and piece. Without them a
/// large unit has about two waves of blocks, and the second, partly empty one costs a whole wave; with at
/// least 2^20 work items the last wave is a small fraction of ten or more. Pieces keep 32 r bins or more,
/// so the per-thread set-up stays negligible. It depends only on the grid, never on the device or the
/// launch configuration, so results are the same everywhere.
inline int modern_r_pieces(int cells, int n_r) {
    const int wanted = ((1 << 20) + cells - 1) / cells;
    const int most = n_r / 32 > 1 ? n_r / 32 : 1;
    return wanted < 1 ? 1 : (wanted > most ? most : wanted);
}

/// Queues a modern variant's integral kernel and chunk reduction for one area's slice on a CUDA queue,
/// without host synchronisation.
using ModernLaunchFn = void (*)(const ModernArea& area, const TidalStreams& streams, const LaunchOptions& options,
                                cudaStream_t queue);

/// One variant of the modern family: its kernels and how to launch them.
struct ModernVariant {
    /// Name, precision, kernel instances and shared memory.
    KernelSet kernels;
    /// Launches it over one area's slice.
    ModernLaunchFn launch = nullptr;
};

/// Queues modern-f64's deterministic reduction of one area slice's per-cell results (double precision)
/// into ModernArea::partials (modern.cu); the lean variants share it.
void launch_modern_reduction(const ModernArea& area, int streams, cudaStream_t queue);

/// Groups of consecutive points per r bin that the sub-bin variants skip by (ModernArea::group_weight).
inline constexpr int lean_groups = 4;

/// Adds modern-f64 and modern-f32 (modern.cu), then the lean double-precision variants (lean.cu).
void add_modern_variants(std::vector<ModernVariant>& out);

/// Adds the lean double-precision variants: modern-f64's sum with less work around the FP64 pipe (lean.cu,
/// after those of add_lean_ladder_variants()).
void add_lean_variants(std::vector<ModernVariant>& out);

/// Adds the lean variants between modern-f64 and those of lean.cu, one policy at a time (lean_ladder.cu).
void add_lean_ladder_variants(std::vector<ModernVariant>& out);

}  // namespace mwsep::cuda
