/// @file tuned.hpp
/// @brief The tuned single-thread CPU baselines: the MRI (Q, F^H d) and Coulomb loops in the form Ryoo et al.
/// compared their kernels with ("we applied optimizations such as SIMD instructions and fast math libraries to
/// the CPU-only versions"; for MRI "approximately 4.3X over the original code"), beside the documents' loops of
/// reference.hpp. A labelled variant of the baseline, not the documents' code:
///
/// - MRI: voxels in blocks that stay in the L1 cache, every sample streamed past a block (a cache-friendly
///   order; each voxel still adds its terms in increasing m, as the documents' loop does), 2π·k and the
///   weights formed once per sample (strength reduction), the loop over a block's voxels vectorised
///   (`#pragma omp simd`), and sin and cos from one quadrant reduction and two short polynomials
///   (sincos_fast) in place of the math library's calls: the "fast math library" of the paper.
/// - Coulomb: a lattice row's potentials in the L1 cache, every atom streamed past a row, dz² formed once per
///   slice and atom and dy² + dz² once per row and atom (as step D2/D3 of the GPU ladder does), the loop over
///   a row's points vectorised; q / √r² stays exact in IEEE arithmetic (a vector square root and division).
///
/// Both run in single precision on one thread, as the documents' loops do, and their results are checked
/// against the FP64 references of reference.hpp before they are timed (`kirk_hwu cpu-bench`); the error bound
/// is that of the documents' single-precision loop (tuned_tolerance).
#pragma once

#include <cstdint>
#include <vector>

#include "kirk_hwu/inputs.hpp"
#include "kirk_hwu/pair_math.hpp"

namespace kirk_hwu::tuned {

/// The bound on a tuned loop's relative L2 error against the FP64 reference: the documents' single-precision
/// loop's bound. Its phase 2π(k·x) is rounded to float, an absolute error of about |e|·2⁻²⁴ (4·10⁻⁵ rad at
/// |e| ≈ 600), which dominates the polynomials' own error (sincos_fast_bound).
constexpr double tuned_tolerance = 1e-3;

/// The largest absolute error of sincos_fast against sin and cos in double, for |x| ≤ sincos_fast_range, as
/// the tests measure it with margin: the reduction's three-part π/2 keeps the reduced argument within a few
/// float roundings of its true value over that range, and the polynomials are within 3·10⁻⁸ of sin and cos
/// on [−π/4, π/4].
constexpr double sincos_fast_bound = 5e-7;
/// The range of arguments for which sincos_fast_bound holds (the MRI phases reach about ±600).
constexpr float sincos_fast_range = 4096.0f;

// [sincos-fast-begin]
/// sin x and cos x in single precision without the math library: x = j·π/2 + r with j the nearest integer
/// to x·2/π and r reduced in three steps (π/2 split into three floats, Cody and Waite), then the Taylor
/// polynomials of degree 9 (sin) and 8 (cos) on |r| ≤ π/4, and the quadrant j mod 4 choosing and signing
/// them. Branch-free, so that a loop calling it vectorises.
inline void sincos_fast(float x, float& sin_x, float& cos_x) {
    const float t = x * 0.636619772367581343f;  // 2/π
    const int j = static_cast<int>(t + (t >= 0.0f ? 0.5f : -0.5f));
    const float fj = static_cast<float>(j);
    const float r = ((x - fj * 1.5703125f) - fj * 4.837512969970703125e-4f) - fj * 7.54978995489188216e-8f;
    const float r2 = r * r;
    const float s = r + r * r2 * (-1.66666667e-1f + r2 * (8.33333333e-3f + r2 * (-1.98412698e-4f + r2 * 2.75573192e-6f)));
    const float c = 1.0f + r2 * (-0.5f + r2 * (4.16666667e-2f + r2 * (-1.38888889e-3f + r2 * 2.48015873e-5f)));
    const int quadrant = j & 3;  // two's complement: also right for negative j
    const float a = (quadrant & 1) ? c : s;
    const float b = (quadrant & 1) ? s : c;
    sin_x = (quadrant & 2) ? -a : a;
    cos_x = ((quadrant + 1) & 2) ? -b : b;
}
// [sincos-fast-end]

/// Q or F^H d (@p out) of every voxel of @p in by the tuned loop, in single precision on one thread;
/// @p sum_r and @p sum_i are resized to N and overwritten.
void mri(const MriInput& in, MriOutput out, std::vector<float>& sum_r, std::vector<float>& sum_i);

/// The potential at every lattice point of @p in by the tuned loop, in single precision on one thread;
/// @p grid is resized and overwritten, index GX·GY·k + GX·j + i.
void coulomb(const CoulombInput& in, std::vector<float>& grid);

}  // namespace kirk_hwu::tuned
