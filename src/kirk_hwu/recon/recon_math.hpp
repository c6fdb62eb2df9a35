/// @file recon_math.hpp
/// @brief The per-point arithmetic of the reconstruction, written once for the CPU and the CUDA kernels:
/// the analytic Fourier transform of an ellipsoid (the phantom's exact k-space data), the Kaiser-Bessel
/// gridding kernel and its Fourier transform (deapodisation), and the index arithmetic of the Toeplitz
/// embedding. Everything is in double precision.
#pragma once

#include <cmath>

#include "kirk_hwu/pair_math.hpp"

namespace kirk_hwu::recon {

/// π in double.
inline constexpr double pi = 3.141592653589793238462643383279502884;

// [phantom-math-begin]
/// One ellipsoid of the phantom, in field-of-view units: centre, semi-axes, a rotation about z and the
/// value added inside it.
struct Ellipsoid {
    double cx;     ///< centre, x
    double cy;     ///< centre, y
    double cz;     ///< centre, z
    double ax;     ///< semi-axis along the rotated x axis
    double ay;     ///< semi-axis along the rotated y axis
    double az;     ///< semi-axis along z
    double angle;  ///< rotation about z [rad]
    double value;  ///< value added inside
};

/// The Fourier transform of the unit ball's indicator at spatial frequency @p q ≥ 0 (cycles per unit
/// length): ∫_{|x|≤1} e^{−2πi k·x} dx = (sin u − u cos u) / (2π² q³), u = 2πq; its series near q = 0.
KH_HD double unit_ball_transform(double q) {
    const double u = 2 * pi * q;
    if (u < 1e-2) return 4 * pi / 3 * (1 - u * u / 10);
    return (sin(u) - u * cos(u)) / (2 * pi * pi * q * q * q);
}

/// Whether the point (@p x, @p y, @p z) lies inside @p e (the boundary included).
KH_HD bool inside(const Ellipsoid& e, double x, double y, double z) {
    const double c = cos(e.angle), s = sin(e.angle);
    const double dx = x - e.cx, dy = y - e.cy, dz = z - e.cz;
    const double u = (c * dx + s * dy) / e.ax, v = (-s * dx + c * dy) / e.ay, w = dz / e.az;
    return u * u + v * v + w * w <= 1;
}

/// The Fourier transform ∫ value·1_e(x) e^{−2πi k·x} dx of @p e at (@p kx, @p ky, @p kz): with x = c + R D v,
/// value · ax ay az · e^{−2πi k·c} · B(|D Rᵀ k|), B the unit ball's transform.
KH_HD void ellipsoid_transform(const Ellipsoid& e, double kx, double ky, double kz, double* re, double* im) {
    const double c = cos(e.angle), s = sin(e.angle);
    const double u = e.ax * (c * kx + s * ky), v = e.ay * (-s * kx + c * ky), w = e.az * kz;
    const double magnitude = e.value * e.ax * e.ay * e.az * unit_ball_transform(sqrt(u * u + v * v + w * w));
    const double phase = -2 * pi * (kx * e.cx + ky * e.cy + kz * e.cz);
    *re = magnitude * cos(phase);
    *im = magnitude * sin(phase);
}
// [phantom-math-end]

// [kaiser-bessel-begin]
/// The modified Bessel function I₀(@p x) by its power series Σ ((x/2)^{2j} / j!²), to double rounding for
/// the |x| ≤ 30 the gridding kernel needs.
KH_HD double bessel_i0(double x) {
    const double q = x * x / 4;
    double term = 1, sum = 1;
    for (int j = 1; j < 200 && term > 1e-17 * sum; ++j) {
        term *= q / (static_cast<double>(j) * j);
        sum += term;
    }
    return sum;
}

/// The Kaiser-Bessel shape β for a kernel @p width grid cells wide on a grid oversampled @p sigma times
/// (Beatty, Nishimura and Pauly 2005): β = π √(W²/σ² (σ − ½)² − 0.8).
KH_HD double kaiser_bessel_beta(double width, double sigma) {
    return pi * sqrt(width * width / (sigma * sigma) * (sigma - 0.5) * (sigma - 0.5) - 0.8);
}

/// The Kaiser-Bessel kernel at @p distance grid cells from its centre: I₀(β √(1 − (2d/W)²)), zero at and
/// beyond W/2.
KH_HD double kaiser_bessel(double distance, double width, double beta) {
    const double t = 2 * distance / width;
    if (t * t >= 1) return 0;
    return bessel_i0(beta * sqrt(1 - t * t));
}

/// The kernel's Fourier transform at image position @p x (field-of-view units), the kernel written in
/// k-space units (its width L = W/σ cycles per field of view): ∫ KB(κ) e^{2πiκx} dκ =
/// L sinh(√(β² − (πLx)²)) / √(β² − (πLx)²), the sin form past the zero. Gridding divides by it per axis.
KH_HD double kaiser_bessel_transform(double x, double width, double sigma, double beta) {
    const double l = width / sigma;
    const double a = pi * l * x;
    const double s = beta * beta - a * a;
    if (s > 1e-12) return l * sinh(sqrt(s)) / sqrt(s);
    if (s < -1e-12) return l * sin(sqrt(-s)) / sqrt(-s);
    return l;
}
// [kaiser-bessel-end]

/// The index along one axis of an L-point circulant array (L = 2N₁) that holds the offset whose index on
/// the (2N₁)-point Q grid is @p i (offset i − N₁): (i + N₁) mod L, the shift that puts offset 0 first.
KH_HD int circulant_index(int i, int grid) { return (i + grid) % (2 * grid); }

}  // namespace kirk_hwu::recon
