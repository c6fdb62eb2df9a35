/// @file reference.hpp
/// @brief The CPU computations: the documents' single-thread baselines in double and single precision (the
/// loop order they print) and the FP64 references every GPU variant is checked against, on all outputs or
/// on a spread subset of them; and the error measures of the accuracy study.
#pragma once

#include <cstddef>
#include <vector>

#include "kirk_hwu/inputs.hpp"
#include "kirk_hwu/pair_math.hpp"

namespace kirk_hwu {

/// The published CPU loop (scatter: samples outer, voxels inner, library sin and cos) in precision
/// @p Real over all voxels; @p sum_r and @p sum_i are resized to N and overwritten.
template <class Real>
void mri_cpu_scatter(const MriInput& in, MriOutput out, std::vector<Real>& sum_r, std::vector<Real>& sum_i);

/// The FP64 reference of the voxels @p voxels (gather: each voxel adds its terms in increasing m, the
/// order of the scatter loop too), on @p threads threads. Returns 2·|voxels| values: all real parts, then
/// all imaginary parts.
std::vector<double> mri_reference(const MriInput& in, MriOutput out, const std::vector<std::size_t>& voxels,
                                  int threads);

/// The published CPU loop (slices, rows, columns, atoms; q / sqrt(r²)) in precision @p Real over the
/// whole lattice; @p grid is resized and overwritten, index GX·GY·k + GX·j + i.
template <class Real>
void coulomb_cpu(const CoulombInput& in, std::vector<Real>& grid);

/// The FP64 potential at the lattice points @p points (linear indices), on @p threads threads.
std::vector<double> coulomb_reference(const CoulombInput& in, const std::vector<std::size_t>& points, int threads);

/// @p count indices spread over [0, @p total): one per stride, at a varying offset inside each stride so
/// that no lattice row or plane is favoured; all indices when @p count ≥ @p total.
std::vector<std::size_t> spread_subset(std::size_t total, std::size_t count);

/// How far a result lies from its reference.
struct ErrorStats {
    double max_abs = 0;  ///< max |out − ref|
    double max_rel = 0;  ///< max |out − ref| / max |ref|
    double rel_l2 = 0;   ///< ‖out − ref‖₂ / ‖ref‖₂
};

/// The errors of @p out against @p ref (same length; std::invalid_argument otherwise).
ErrorStats compare(const std::vector<double>& ref, const std::vector<double>& out);

}  // namespace kirk_hwu
