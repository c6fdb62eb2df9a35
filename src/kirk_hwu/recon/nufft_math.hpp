/// @file nufft_math.hpp
/// @brief The per-sample arithmetic of the non-uniform FFT, written once for the CPU (nufft.cpp) and the GPU
/// (kernels/kirk_hwu/nufft_gpu.cu): the grid points a sample reaches, the wrap of a point onto the periodic
/// grid, and the kernel's weights along one axis (the Kaiser-Bessel kernel of recon_math.hpp).
#pragma once

#include <cmath>

#include "kirk_hwu/recon/recon_math.hpp"

namespace kirk_hwu::recon {

/// The widest kernel the NUFFT takes (grid cells): the size of the per-axis weight arrays.
inline constexpr int nufft_max_width = 16;

// [nufft-math-begin]
/// The first grid point a sample at @p u (grid cells) reaches with a kernel @p width cells wide: ⌈u − W/2⌉; it
/// reaches W points from there (the kernel is zero at a distance of W/2).
KH_HD int nufft_first(double u, int width) { return static_cast<int>(ceil(u - 0.5 * width)); }

/// Grid point @p p on the periodic grid of @p l points: p mod l in [0, l).
KH_HD int nufft_wrap(int p, int l) {
    const int r = p % l;
    return r < 0 ? r + l : r;
}

/// The @p width weights of one axis for a sample at @p u whose first point is @p first: KB(|u − (first + t)|).
KH_HD void nufft_weights(double u, int first, int width, double beta, double* weights) {
    for (int t = 0; t < width; ++t) weights[t] = kaiser_bessel(fabs(u - (first + t)), width, beta);
}
// [nufft-math-end]

}  // namespace kirk_hwu::recon
