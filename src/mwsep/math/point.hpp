/// @file point.hpp
/// @brief The per-point formulas of the model, shared by the CPU integrators and every CUDA kernel.
///
/// Every formula that is evaluated once per quadrature point or once per star lives here, as an inline
/// function that compiles for the host and, under nvcc, for the device (spec sections 2.1, 2.7, 3.1, 4).
/// The integrators differ only in how they loop over points and how they sum; none of them repeats a
/// formula. Functions are templates on the floating-point type so that the single-precision kernels of
/// the thesis's precision study (Table 4.5) use the same algebra.
#pragma once

#include <cmath>

#include "mwsep/math/constants.hpp"
#include "mwsep/math/hd.hpp"

namespace mwsep::math {

/// A Cartesian vector in Galactocentric coordinates [kpc]: the Sun sits at (-8.5, 0, 0).
template <class Real>
struct Vec3 {
    /// Along the line from the Sun through the Galactic centre (l = 0)
    Real x;
    /// In the Galactic plane, towards l = 90 deg
    Real y;
    /// Towards the north Galactic pole (b = 90 deg)
    Real z;
};

/// Apparent g magnitude of a star at heliocentric distance @p r_kpc (spec 2.1, first form, kept for rounding).
template <class Real>
MWSEP_HD Real magnitude_from_distance(Real r_kpc) {
    using std::log10;
    return Real(5) * (log10(Real(1000) * r_kpc) - Real(1)) + Real(constants::abs_mag);
}

/// Heliocentric distance [kpc] of a star of apparent magnitude @p g (spec 2.1, first form).
template <class Real>
MWSEP_HD Real distance_from_magnitude(Real g) {
    using std::pow;
    return pow(Real(10), (g - Real(constants::abs_mag)) / Real(5) + Real(1)) / Real(1000);
}

/// Detection efficiency of SDSS for F-turnoff stars of magnitude @p g (spec 2.1 sigmoid).
template <class Real>
MWSEP_HD Real detection_efficiency(Real g) {
    using std::exp;
    return Real(constants::sigmoid0) /
           (exp(Real(constants::sigmoid1) * (g - Real(constants::sigmoid2))) + Real(1));
}

/// Efficiency times the convolution Jacobian over r^3: reff(g') * 1.8 / rbar^3 (spec 2.7).
/// Every density at distance @p rbar is multiplied by this once, after its convolution sum.
template <class Real>
MWSEP_HD Real efficiency_factor(Real rbar) {
    const Real g = magnitude_from_distance(rbar);
    return detection_efficiency(g) * Real(constants::xr) / (rbar * rbar * rbar);
}

/// One convolution point at a given distance: where it lies on the line of sight and its weight.
template <class Real>
struct ConvolutionPoint {
    Real r_point;  ///< distance of the point [kpc]
    Real qw_r3_n;  ///< Gauss-Legendre weight x r_point^3 x Gaussian magnitude density
};

/// Convolution point @p k for a star or bin centre of magnitude @p g_centre (spec 2.7).
/// @param g_centre  apparent magnitude g' of the star or bin centre [mag]
/// @param offset  Delta g_k = 1.8 x_k, the magnitude offset of node k
/// @param weight  Gauss-Legendre weight w_k of node k
template <class Real>
MWSEP_HD ConvolutionPoint<Real> convolution_point(Real g_centre, Real offset, Real weight) {
    using std::exp;
    const Real g = g_centre + offset;
    const Real r = distance_from_magnitude(g);
    // The original code evaluates the Gaussian at (g - g'), not at the offset itself; keep that rounding.
    const Real dg = g - g_centre;
    const Real two_var = Real(2) * Real(constants::sigma_mag) * Real(constants::sigma_mag);
    const Real gauss = Real(1.0 / (constants::sigma_mag * 2.50662827463100050242)) * exp(-(dg * dg) / two_var);
    return {r, weight * r * r * r * gauss};
}

/// Galactocentric position of the point at distance @p r along the sky direction given by
/// cos b cos l, cos b sin l and sin b (spec 3.1).
template <class Real>
MWSEP_HD Vec3<Real> point_position(Real r, Real cosb_cosl, Real cosb_sinl, Real sinb) {
    return {r * cosb_cosl - Real(constants::sun_r), r * cosb_sinl, r * sinb};
}

/// Squared flattened Galactocentric radius x^2 + y^2 + z^2 / q^2, with 1/q^2 precomputed.
template <class Real>
MWSEP_HD Real flattened_radius_squared(const Vec3<Real>& p, Real q_inv_sq) {
    return p.x * p.x + p.y * p.y + p.z * p.z * q_inv_sq;
}

/// Denominator of the Hernquist-like background for alpha = delta = 1: r_g (r_g + r_0)^3.
template <class Real>
MWSEP_HD Real hernquist_denominator(Real rg, Real r0) {
    const Real rs = rg + r0;
    return rg * rs * rs * rs;
}

/// General power-law background term qw / (r_g^alpha (r_g + r_0)^(3 - alpha + delta)) (spec 3.1 case 3).
template <class Real>
MWSEP_HD Real general_background_term(Real qw, Real rg, Real r0, Real alpha, Real delta) {
    using std::pow;
    return qw / (pow(rg, alpha) * pow(rg + r0, Real(3) - alpha + delta));
}

/// Auxiliary quadratic-in-magnitude background term qw (A g^2 + B g + C) (spec 3.1 case 2, aux_bg_profile = 1).
template <class Real>
MWSEP_HD Real auxiliary_background_term(Real qw, Real r_point, Real a, Real b, Real c) {
    const Real g = magnitude_from_distance(r_point);
    return qw * (a * g * g + b * g + c);
}

/// Squared distance of point @p p from the axis of a stream through @p centre along unit vector @p axis.
/// Formed component-wise as d - (a.d) a, like the original, not via a cross product (spec 3.1).
template <class Real>
MWSEP_HD Real stream_distance_squared(const Vec3<Real>& p, const Vec3<Real>& centre, const Vec3<Real>& axis) {
    Real dx = p.x - centre.x;
    Real dy = p.y - centre.y;
    Real dz = p.z - centre.z;
    const Real t = axis.x * dx + axis.y * dy + axis.z * dz;
    dx -= t * axis.x;
    dy -= t * axis.y;
    dz -= t * axis.z;
    return dx * dx + dy * dy + dz * dz;
}

// [divsqrt-ieee-begin]
/// Division and square root with IEEE-754 rounding: the thesis's unoptimized choice (spec 5.5).
struct IeeeDivSqrt {
    template <class Real>
    MWSEP_HD static Real div(Real a, Real b) { return a / b; }  ///< a / b, correctly rounded
    /// sqrt(x), correctly rounded
    template <class Real>
    MWSEP_HD static Real sqrt(Real x) {
        using std::sqrt;
        return sqrt(x);
    }
};
// [divsqrt-ieee-end]

/// Single-precision 1/x, correctly rounded: on the device `__frcp_rn` is the IEEE round-to-nearest reciprocal
/// (`rcp.rn.f32`), not the raw hardware estimate (`rcp.approx.f32`); the host computes the same IEEE value.
MWSEP_HD float float_reciprocal(float x) {
#if defined(__CUDA_ARCH__)
    return __frcp_rn(x);
#else
    return 1.0f / x;
#endif
}

/// Single-precision estimate of 1/sqrt(x) (device: the approximate rsqrt instruction; host: IEEE float).
MWSEP_HD float float_rsqrt(float x) {
#if defined(__CUDA_ARCH__)
    return rsqrtf(x);
#else
    return 1.0f / std::sqrt(x);
#endif
}

// [divsqrt-mixed-begin]
/// The thesis's optimized division and square root (spec 5.5): a single-precision seed refined by
/// Newton steps in double. Faithfully rounded (within 1 ulp), valid for arguments in the normal float
/// range. For single precision the seed alone is used, as there is nothing to refine.
struct MixedPrecisionDivSqrt {
    /// a / b: one Newton step on the float reciprocal of b, then a Markstein correction of the quotient.
    MWSEP_HD static double div(double a, double b) {
        const double y0 = static_cast<double>(float_reciprocal(static_cast<float>(b)));
        const double c = 1.0 - b * y0;
        const double y1 = y0 + y0 * c;  // one Newton step for 1/b: about 44 bits
        const double q = a * y1;
        const double rem = a - b * q;   // Newton-Markstein correction of the quotient itself
        return q + y1 * rem;
    }
    /// sqrt(y): one Newton step on the float estimate of 1/sqrt(y), then one coupled step on sqrt(y).
    MWSEP_HD static double sqrt(double y) {
        const double x0 = static_cast<double>(float_rsqrt(static_cast<float>(y)));
        const double x1 = x0 * (3.0 - y * x0 * x0);  // about 2 / sqrt(y): the factor 1/2 is deferred
        const double s = x1 * y;                      // about 2 sqrt(y)
        return s * (0.75 - 0.0625 * s * x1);          // one coupled Newton step on sqrt(y)
    }
    MWSEP_HD static float div(float a, float b) { return a * float_reciprocal(b); }  ///< a times the float 1/b
    MWSEP_HD static float sqrt(float y) { return y * float_rsqrt(y); }               ///< y times the estimate of 1/sqrt(y) (y > 0)
};
// [divsqrt-mixed-end]

/// A star's term of the likelihood (spec 4.3): log10 of its mixture probability @p p, or the -238 penalty
/// when p is exactly 0. The GPU forms p as in spec 4.2: (bg_sum W_bg + sum_s st_sum_s W_s) x reff_xr_rp3,
/// the sums taken over the convolution points and W_c = (E_c / I_c) / Sigma_E precomputed once.
template <class Real>
MWSEP_HD Real log10_or_penalty(Real p) {
    using std::log10;
    return p == Real(0) ? Real(constants::zero_probability_penalty) : log10(p);
}

}  // namespace mwsep::math
