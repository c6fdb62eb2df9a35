/// @file elimination_math.hpp
/// @brief The arithmetic of the unblocked Gaussian elimination that calls SAXPY, written once for the CPU
/// and the GPU: the multiplier of a row and the SAXPY element of point_math.hpp. Both sides perform the
/// same operations in the same order on every element, so the factorised matrices agree bit for bit.
#pragma once

#include "ryoo/point_math.hpp"

namespace ryoo {

/// The multiplier that eliminates a[i][k] with the pivot row k: a[i][k] / a[k][k], one correctly rounded
/// division (nvcc's default -prec-div=true, IEEE on the CPU).
RYOO_HOST_DEVICE inline float elimination_multiplier(float a_ik, float a_kk) { return a_ik / a_kk; }

/// One element of the row update a[i][j] <- a[i][j] - l a[k][j]: SAXPY with alpha = -l (negation is exact).
RYOO_HOST_DEVICE inline float elimination_update(float l, float a_kj, float a_ij) { return saxpy_element(-l, a_kj, a_ij); }

}  // namespace ryoo
