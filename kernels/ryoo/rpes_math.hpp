/// @file rpes_math.hpp
/// @brief The per-quartet arithmetic of RPES (two-electron repulsion integrals of s-type Gaussians with a
/// one-root Rys quadrature), written once for the CPU and the GPU, in single precision.
///
/// For s-type primitives the Rys polynomial of the quartet has degree 0, so the one-root rule is exact and
/// the integral is prefactor x w(T) with the weight w(T) = F0(T), the Boys function. The weight is
/// evaluated from piecewise polynomial fits of F0 on rpes_intervals unit intervals of T (degree
/// rpes_degree, fitted at Chebyshev nodes by rpes_fit_table in src/ryoo/cpu/rpes.cpp) and, for T >=
/// rpes_intervals, by the asymptote F0(T) = sqrt(pi / (4 T)) (erfc(sqrt T) < 2e-8 there, below single
/// precision).
///
/// A pair of primitives a, b (exponents alpha, beta, centres A, B) is stored as its centre P, its
/// exponent p = alpha + beta and its factor k = N_a N_b exp(-alpha beta |A - B|^2 / p) sqrt(2) pi^(5/4) / p
/// (N: the s normalisation (2 alpha / pi)^(3/4)); then (ab|cd) = k_ab k_cd F0(T) / sqrt(p + q) with
/// T = p q |P - Q|^2 / (p + q).
#pragma once

#include "ryoo/point_math.hpp"

namespace ryoo {

/// Unit intervals of T fitted by polynomials: [0, 1), [1, 2), ..., [15, 16).
inline constexpr int rpes_intervals = 16;
/// Degree of each interval's polynomial.
inline constexpr int rpes_degree = 6;
/// Floats per interval in the table: the rpes_degree + 1 coefficients (lowest first), padded to 8.
inline constexpr int rpes_stride = 8;
/// Floats of the whole fit table.
inline constexpr int rpes_table_size = rpes_intervals * rpes_stride;
/// sqrt(pi) / 2: the asymptote's constant.
inline constexpr float rpes_half_sqrt_pi = 0.886226925452758f;

/// The one-root Rys weight F0(@p t) from the fit table read through @p coef (coef(i): float i of the
/// table), in single precision: Horner's rule in x = t - floor(t) on t's interval, the asymptote beyond.
template <class Coef>
RYOO_HOST_DEVICE inline float rpes_weight(float t, const Coef& coef) {
    if (t >= static_cast<float>(rpes_intervals)) return rpes_half_sqrt_pi / sqrtf(t);
    const int k = static_cast<int>(t);
    const float x = t - static_cast<float>(k);
    const int base = k * rpes_stride;
    float acc = coef(base + rpes_degree);
    for (int j = rpes_degree - 1; j >= 0; --j) acc = fmaf(acc, x, coef(base + j));
    return acc;
}

/// F0(T) / sqrt(p + q) of the quartet of bra pair (@p px, @p py, @p pz, @p p) and ket pair (@p qx, @p qy,
/// @p qz, @p q): the integral without the pairs' factors.
template <class Coef>
RYOO_HOST_DEVICE inline float rpes_quartet(float px, float py, float pz, float p, float qx, float qy, float qz, float q,
                                           const Coef& coef) {
    const float dx = px - qx, dy = py - qy, dz = pz - qz;
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
    const float s = p + q;
    const float inv = 1.0f / sqrtf(s);
    const float t = p * q * r2 * (inv * inv);
    return rpes_weight(t, coef) * inv;
}

}  // namespace ryoo
