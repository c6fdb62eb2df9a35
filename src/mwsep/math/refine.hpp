/// @file refine.hpp
/// @brief Double-precision 1/sqrt(x) and 1/x from a hardware seed, for the modern kernel's background term.
///
/// GPUs have approximate reciprocal and reciprocal-square-root instructions for doubles (only the high
/// word is used, so the seed is good to roughly single precision). The library's correctly rounded
/// versions add more Newton steps and a slow-path test; the likelihood needs neither, only a relative
/// error near 1e-16. One higher-order correction from the seed gets there:
///   with e = 1 - x y0,     1/x        = y0 / (1 - e)    = y0 (1 + e + e^2 + e^3 + ...),
///   with e = 1 - x y0^2,   1/sqrt(x)  = y0 / sqrt(1-e)  = y0 (1 + e/2 + 3e^2/8 + 5e^3/16 + ...).
/// For a seed with relative error below 2^-19, |e| is below about 2^-19 for the reciprocal and 2^-18 for
/// the square root. Truncating after e^2 leaves a relative error of about |e|^3 (5/16 of it for the
/// square root): below 2^-56, a fraction of an ulp. tests/test_point_math.cpp checks both within 1 ulp
/// with seeds perturbed by up to 2^-19; a GPU test measures that the hardware's seeds are that good
/// (mwsep_gpu_tests, GpuMath; the H200's measured about 2^-20).
#pragma once

#include "mwsep/math/exp_nonpositive.hpp"
#include "mwsep/math/hd.hpp"

namespace mwsep::math {

/// The seed accuracy the refinements below assume: relative error below 2^-19.
inline constexpr double seed_relative_error = 0x1p-19;

/// 1/x from a seed @p y0 with relative error below 2^-19 (x normal and positive): three fused operations
/// (@p one as for rsqrt_from_seed()).
MWSEP_HD double reciprocal_from_seed(double x, double y0, double one = 1.0) {
    const double e = mul_add(-x, y0, one);
    return mul_add(y0, mul_add(e, e, e), y0);  // y0 (1 + e + e^2)
}

/// 1/sqrt(x) from a seed @p y0 with relative error below 2^-19 (x normal and positive): five operations.
/// A kernel may pass the constants 3/8, 1/2 and 1 itself (@p three_eighths, @p half, @p one) from its
/// arguments, so that the multiply-adds read them from the constant bank instead of building each in
/// registers; the operations and the result are the same.
MWSEP_HD double rsqrt_from_seed(double x, double y0, double three_eighths = 3.0 / 8.0, double half = 0.5,
                                double one = 1.0) {
    const double e = mul_add(-x, y0 * y0, one);
    return mul_add(y0 * e, mul_add(e, three_eighths, half), y0);  // y0 (1 + e/2 + 3e^2/8)
}

}  // namespace mwsep::math
