/// @file device_math.cuh
/// @brief Device-side precision helpers: the exponential each precision used in the thesis, and the
/// compensated (Kahan) addition of its single-precision kernels.
#pragma once

namespace mwsep::cuda {

// [precision-helpers-begin]
/// Double precision: the CUDA library exp. Single precision: the fast intrinsic, as the thesis's float kernel.
__device__ __forceinline__ double device_exp(double x) { return exp(x); }
__device__ __forceinline__ float device_exp(float x) { return __expf(x); }  ///< single precision: the `__expf` intrinsic

/// Adds @p v to @p sum; in single precision with a Kahan compensation term kept in @p comp (spec 5.6).
__device__ __forceinline__ void accumulate(double& sum, double& /*comp*/, double v) { sum += v; }
/// Single precision: one Kahan step; @p comp ends up holding the error of @p sum (the host adds sum - comp).
__device__ __forceinline__ void accumulate(float& sum, float& comp, float v) {
    const float y = v - comp;
    const float t = sum + y;
    comp = (t - sum) - y;
    sum = t;
}
// [precision-helpers-end]

}  // namespace mwsep::cuda
