/// @file refine.hpp
/// @brief Double-precision 1/sqrt(x) and 1/x from a hardware seed, for the modern kernel's background term.
///
/// GPUs have approximate reciprocal and reciprocal-square-root instructions for doubles (only the high
/// word is used, so the seed is good to roughly single precision). The library's correctly rounded
/// versions add more Newton steps and a slow-path test; the likelihood needs neither, only a relative
/// error near 1e-16. One higher-order correction from the seed gets there:
///   with e = 1 - x y0,     1/x        = y0 / (1 - e)    = y0 (1 + e + e^2 + e^3 + ...),
///   with e = 1 - x y0^2,   1/sqrt(x)  = y0 / sqrt(1-e)  = y0 (1 + e/2 + 3e^2/8 + 5e^3/16 + 35e^4/128 ...).
/// Truncating after e^3 leaves a relative error of at most about |e|^4 (a third of it for the square
/// root), so any seed with relative error below 2^-17 (|e| <= 2^-16) gives results within a few 1e-19 of
/// exact before rounding. tests/test_point_math.cpp checks both with seeds perturbed by up to 2^-17;
/// the GPU correctness tests check the kernel that uses them against the CPU reference.
#pragma once

#include "math/exp_nonpositive.hpp"
#include "math/hd.hpp"

namespace mwsep::math {

/// 1/x from a seed @p y0 with relative error below 2^-17 (x normal and positive).
MWSEP_HD double reciprocal_from_seed(double x, double y0) {
    const double e = mul_add(-x, y0, 1.0);
    const double series = mul_add(mul_add(e, e, e), e, e);  // e + e^2 + e^3
    return mul_add(y0, series, y0);
}

/// 1/sqrt(x) from a seed @p y0 with relative error below 2^-17 (x normal and positive).
MWSEP_HD double rsqrt_from_seed(double x, double y0) {
    const double e = mul_add(-x, y0 * y0, 1.0);
    const double series = mul_add(mul_add(e, 5.0 / 16.0, 3.0 / 8.0), e, 0.5);  // 1/2 + 3e/8 + 5e^2/16
    return mul_add(y0 * e, series, y0);
}

}  // namespace mwsep::math
