/// @file modern_device.cuh
/// @brief Device pieces shared by the modern kernels (modern.cu) and their lean variants (lean.cu): the
/// hardware's double-precision seeds, the background term, and a stream's per-cell exponent.
#pragma once

#include <cuda_runtime.h>

#include "device_math.cuh"
#include "mwsep/math/exp_table.hpp"
#include "mwsep/math/refine.hpp"
#include "mwsep/math/sightline.hpp"

namespace mwsep::cuda::kernels {

/// The hardware's approximate double-precision reciprocal square root (high word only; a seed).
__device__ __forceinline__ double rsqrt_seed(double x) {
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    return y;
}
/// The hardware's approximate double-precision reciprocal (a seed).
__device__ __forceinline__ double reciprocal_seed(double x) {
    double y;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    return y;
}

/// The Hernquist background term 1 / (r_g (r_g + r0)^3) of one point from r_g^2.
/// Double precision: seeds refined once (math/refine.hpp), no correctly rounded division or square root.
__device__ __forceinline__ double background_term(double rg2, double r0) {
    const double y = math::rsqrt_from_seed(rg2, rsqrt_seed(rg2));  // 1 / r_g
    const double rs_denominator = fma(rg2, y, r0);                  // r_g + r0
    const double rs = math::reciprocal_from_seed(rs_denominator, reciprocal_seed(rs_denominator));
    return y * (rs * rs * rs);
}
/// Single precision: the hardware's approximate reciprocal square root (`rsqrtf`) and the correctly
/// rounded reciprocal `__frcp_rn` (IEEE round to nearest, not the raw estimate).
__device__ __forceinline__ float background_term(float rg2, float r0) {
    const float y = rsqrtf(rg2);
    const float rs = __frcp_rn(fmaf(rg2, y, r0));
    return y * (rs * rs * rs);
}

/// Per-cell form of one stream's exponent. Double precision evaluates it in the table steps of
/// math::exp_from_steps() (the quadratic's coefficients scaled by 256 / ln 2 once per cell); single
/// precision in natural units for the hardware exponential.
template <class Real>
struct StreamExponent {
    math::Quadratic<Real> q;  ///< the exponent as evaluated per point (table steps in double precision)
    /// Takes the exponent @p e in natural units, computed in double for the cell.
    __device__ __forceinline__ void set(const math::Quadratic<double>& e) {
        if constexpr (sizeof(Real) == 8) {
            constexpr double k = math::ExpTable::steps_per_unit;
            q = {e.a * k, e.b * k, e.c * k};
        } else {
            q = {float(e.a), float(e.b), float(e.c)};
        }
    }
    /// The exponent in natural units, in double, for the skipping bound (whose factor 2 covers the
    /// rounding of the scaling back and forth).
    __device__ __forceinline__ math::Quadratic<double> natural() const {
        if constexpr (sizeof(Real) == 8) {
            constexpr double k = 1.0 / math::ExpTable::steps_per_unit;
            return {q.a * k, q.b * k, q.c * k};
        } else {
            return {double(q.a), double(q.b), double(q.c)};
        }
    }
    /// exp of the exponent at distance @p r (the table and polynomial are used in double precision only).
    __device__ __forceinline__ Real term(Real r, const math::ExpTableEntry* table,
                                         const math::ExpPolynomial& poly) const {
        if constexpr (sizeof(Real) == 8) return math::exp_from_steps(q(r), table, poly);
        else return math::stream_term_exp(q(r));
    }
};

}  // namespace mwsep::cuda::kernels
