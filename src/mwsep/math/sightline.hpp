/// @file sightline.hpp
/// @brief The line-of-sight algebra of the modern kernels: along one sky direction every quadrature
/// point is x = r u - (R_sun, 0, 0), so the flattened radius squared and each stream's scaled squared
/// distance from its axis are quadratics in r whose coefficients depend only on the cell (and stream).
///
/// With u the unit direction, w = -(R_sun, 0, 0) - c the offset of the Sun's image from the stream
/// centre c, and a the stream's unit axis:
///   x^2 + y^2 + z^2/q^2 = (u_x^2 + u_y^2 + u_z^2/q^2) r^2 - 2 R_sun u_x r + R_sun^2,
///   |d - (a.d) a|^2 = |d|^2 - (a.d)^2 with d = r u + w
///                  = (|u|^2 - (a.u)^2) r^2 + 2 (u.w - (a.u)(a.w)) r + (|w|^2 - (a.w)^2).
/// Per point only two fused multiply-adds remain for each quadratic.
#pragma once

#include <cmath>

#include "mwsep/math/constants.hpp"
#include "mwsep/math/exp_nonpositive.hpp"
#include "mwsep/math/hd.hpp"
#include "mwsep/math/point.hpp"

namespace mwsep::math {

/// A quadratic (a r + b) r + c in the distance r.
template <class Real>
struct Quadratic {
    Real a;  ///< coefficient of r^2
    Real b;  ///< coefficient of r
    Real c;  ///< constant term
    /// The value at @p r, by Horner's rule with fused multiply-adds.
    MWSEP_HD Real operator()(Real r) const { return mul_add(mul_add(a, r, b), r, c); }
};

/// The flattened Galactocentric radius squared along direction (cos b cos l, cos b sin l, sin b).
template <class Real>
MWSEP_HD Quadratic<Real> flattened_radius_quadratic(Real cbcl, Real cbsl, Real sinb, Real q_inv_sq) {
    const Real sun = Real(constants::sun_r);
    return {cbcl * cbcl + cbsl * cbsl + sinb * sinb * q_inv_sq, Real(-2) * sun * cbcl, sun * sun};
}

/// The stream exponent -|d_perp|^2 / (2 sigma^2) along the same direction, as a quadratic in r.
template <class Real>
MWSEP_HD Quadratic<Real> stream_exponent_quadratic(Real cbcl, Real cbsl, Real sinb, const Vec3<Real>& centre,
                                                   const Vec3<Real>& axis, Real inv_two_sigma_sq) {
    const Real wx = -Real(constants::sun_r) - centre.x, wy = -centre.y, wz = -centre.z;
    const Real au = axis.x * cbcl + axis.y * cbsl + axis.z * sinb;
    const Real aw = axis.x * wx + axis.y * wy + axis.z * wz;
    const Real uu = cbcl * cbcl + cbsl * cbsl + sinb * sinb;
    const Real uw = cbcl * wx + cbsl * wy + sinb * wz;
    const Real ww = wx * wx + wy * wy + wz * wz;
    return {-(uu - au * au) * inv_two_sigma_sq, Real(-2) * (uw - au * aw) * inv_two_sigma_sq,
            -(ww - aw * aw) * inv_two_sigma_sq};
}

/// A stream exponent in vertex form a (r - v)^2 + m, evaluated as (a t) t + m with t = r - v: a
/// subtraction, a product and a fused multiply-add. Near the stream, where its terms matter, the expanded
/// quadratic of stream_exponent_quadratic() adds terms of hundreds of kpc^2 to get a distance squared of a
/// fraction of one, and loses that many digits (for a stream of sigma 0.1 kpc about 1e-11 of each term);
/// the vertex form's terms are of the size of the result.
template <class Real>
struct VertexQuadratic {
    Real a;  ///< curvature (not positive for a stream exponent)
    Real v;  ///< the vertex: where the exponent is largest [kpc]
    Real m;  ///< the value at the vertex
    /// The value at @p r.
    MWSEP_HD Real operator()(Real r) const {
        const Real t = r - v;
        return mul_add(a * t, t, m);
    }
};

/// The stream exponent -|d - (a.d) a|^2 / (2 sigma^2), d = r u + w, in vertex form, from cross products
/// without cancellation: with n = a x u and k = a x w, |a x d|^2 = |n|^2 (r - v)^2 + |k + v n|^2 where
/// v = -(n.k) / |n|^2. For an axis of length^2 1 + delta (a rounded unit vector) the projection formula of
/// the model equals (1 - delta) |a x d|^2 + delta^2 |d|^2, so the factor 2 - |a|^2 keeps that definition
/// (delta^2 |d|^2 is below 1e-28 kpc^2). A sight line along the axis (n = 0) has a constant exponent.
template <class Real>
MWSEP_HD VertexQuadratic<Real> stream_exponent_vertex(Real cbcl, Real cbsl, Real sinb, const Vec3<Real>& centre,
                                                      const Vec3<Real>& axis, Real inv_two_sigma_sq) {
    const Real wx = -Real(constants::sun_r) - centre.x, wy = -centre.y, wz = -centre.z;
    const Real nx = axis.y * sinb - axis.z * cbsl, ny = axis.z * cbcl - axis.x * sinb, nz = axis.x * cbsl - axis.y * cbcl;
    const Real kx = axis.y * wz - axis.z * wy, ky = axis.z * wx - axis.x * wz, kz = axis.x * wy - axis.y * wx;
    const Real scale = (Real(2) - (axis.x * axis.x + axis.y * axis.y + axis.z * axis.z)) * inv_two_sigma_sq;
    const Real nn = nx * nx + ny * ny + nz * nz;
    if (!(nn > Real(0))) return {Real(0), Real(0), -(kx * kx + ky * ky + kz * kz) * scale};
    const Real v = -(nx * kx + ny * ky + nz * kz) / nn;
    const Real px = mul_add(v, nx, kx), py = mul_add(v, ny, ky), pz = mul_add(v, nz, kz);
    return {-nn * scale, v, -(px * px + py * py + pz * pz) * scale};
}

/// The exponent of stream_term_bound(): the largest e(r) for r in [r_lo, r_hi] (at the clamped vertex of a
/// concave e, or at an end), raised by a relative slack of 1e-9. stream_term_bound() is 2 where it is not
/// negative and 2 exp(it) where it is; the skip thresholds' search compares it before taking the exponential.
template <class Real>
MWSEP_HD Real stream_term_bound_exponent(const Quadratic<Real>& e, Real r_lo, Real r_hi) {
    Real best = e(r_lo) > e(r_hi) ? e(r_lo) : e(r_hi);
    if (e.a < Real(0)) {
        Real v = -e.b / (Real(2) * e.a);
        v = v < r_lo ? r_lo : (v > r_hi ? r_hi : v);
        const Real at = e(v);
        best = at > best ? at : best;
    }
    return best + std::fabs(best) * Real(1e-9);
}

/// stream_term_bound() from its exponent @p x (stream_term_bound_exponent()): 2 where @p x is not negative,
/// 2 exp(x) where it is.
template <class Real>
MWSEP_HD Real stream_term_bound_of_exponent(Real x) {
    return x >= Real(0) ? Real(2) : Real(2) * std::exp(x);
}

/// An upper bound of exp(e(r)) for r in [r_lo, r_hi], for a stream exponent e that is a concave quadratic
/// (a <= 0 up to rounding): e is largest at the vertex -b / (2a) clamped to the interval, or at an end.
/// A relative slack of 1e-9 on the exponent and a factor 2 cover the rounding of e and of exp.
template <class Real>
MWSEP_HD Real stream_term_bound(const Quadratic<Real>& e, Real r_lo, Real r_hi) {
    return stream_term_bound_of_exponent(stream_term_bound_exponent(e, r_lo, r_hi));
}

/// Whether a stream's terms in one r bin must be evaluated: unless the bin's bound
/// ids * (sum of the bin's weights) * max exp(e) over [r_lo, r_hi] is below the stream's threshold
/// (cpu/stream_skipping.hpp). The fast CPU integrator, the modern kernels and the skip count all decide
/// with this one test; a NaN bound counts as needed.
MWSEP_HD bool stream_bin_needed(double ids, double bin_weight, const Quadratic<double>& e, double r_lo, double r_hi,
                                double threshold) {
    return !(ids * bin_weight * stream_term_bound(e, r_lo, r_hi) < threshold);
}

/// exp of a stream exponent, which is mathematically never positive (rounding can make it a hair above 0,
/// which is clamped). The clamp is written so that a NaN exponent stays NaN (a stream centre so far away that
/// its squares overflow): the integral is then NaN on every backend and refused, never exp(0) = 1.
/// On the CPU the branch-free exp_nonpositive, which vectorises; on the GPU the CUDA library's exp, which
/// the exp microbenchmark (`mwsep exp-throughput`) measured faster there than exp_nonpositive.
/// (The modern double-precision kernel uses the table exponential of exp_table.hpp instead.)
MWSEP_HD double stream_term_exp(double e) {
#if defined(__CUDA_ARCH__)
    return exp(e > 0.0 ? 0.0 : e);
#else
    return exp_nonpositive(e > 0.0 ? 0.0 : e);
#endif
}
/// The single-precision version: the hardware's fast exponential on the GPU.
MWSEP_HD float stream_term_exp(float e) {
#if defined(__CUDA_ARCH__)
    return __expf(e > 0.0f ? 0.0f : e);
#else
    return std::exp(e > 0.0f ? 0.0f : e);
#endif
}

}  // namespace mwsep::math
