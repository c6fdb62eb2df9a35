/// @file stream_skipping.hpp
/// @brief Which stream terms of which cells are provably negligible, and may be skipped.
///
/// The bound. For cell p, r bin k and stream s, every point's stream term is w_m exp(e(r_m)) with w_m > 0
/// and e the concave quadratic of sightline.hpp, so the bin's stream sum is at most
/// U = ids_j * (sum_{m in k} w_m) * max_{r in [r_min_k, r_max_k]} exp(e(r)), which stream_term_bound()
/// computes with a safety factor for rounding. Let L be the exact stream sum of the cell whose whole line
/// of sight has the largest bound; L is a lower bound of the stream's integral over the area, since every
/// cell contributes a non-negative amount. Skipping every (cell, bin) whose U is below
/// T = 2^-60 L / (n_cells n_r) omits less than n_cells n_r T = 2^-60 L, that is less than 2^-60 (about
/// 8.7e-19) of the stream's integral over the area: far below the rounding of the sum itself.
#pragma once

#include <vector>

#include "mwsep/geometry/tables.hpp"

namespace mwsep::cpu {
class WorkerPool;
}

namespace mwsep::likelihood {

/// The per-bin threshold T of every stream for one area (0 where nothing may be skipped), the search
/// for each stream's largest bound split over @p threads threads (bit-identical for any number: each
/// thread finds the first largest bound of its range of cells, and the ranges are compared in order).
std::vector<double> stream_skip_thresholds(const geometry::IntegrationSetup& s, const geometry::AreaTables& area,
                                           const geometry::FoldedLineOfSight& los, unsigned threads = 1);

/// The same thresholds for the streams @p streams alone: a stream's threshold depends on that stream and the
/// area, never on the other streams, so each value is the same bits as in a setup with more streams.
std::vector<double> stream_skip_thresholds(const std::vector<geometry::StreamGeometry>& streams,
                                           const geometry::AreaTables& area, const geometry::FoldedLineOfSight& los,
                                           unsigned threads = 1);

/// The same thresholds for @p streams, each loop run on the threads of @p pool (started once: a fit computes
/// them for every candidate, where starting threads each time would cost more than the search). The same bits
/// as with any number of threads.
std::vector<double> stream_skip_thresholds(const std::vector<geometry::StreamGeometry>& streams,
                                           const geometry::AreaTables& area, const geometry::FoldedLineOfSight& los,
                                           cpu::WorkerPool& pool);

/// How many r bins of every cell of one area pass the bound, per stream: the stream exponentials the fast
/// integrator and the modern kernels evaluate there are these counts times the points per bin.
std::vector<std::size_t> active_stream_bins(const geometry::IntegrationSetup& s, const geometry::AreaTables& area,
                                            const geometry::FoldedLineOfSight& los,
                                            const std::vector<double>& thresholds);

}  // namespace mwsep::likelihood
