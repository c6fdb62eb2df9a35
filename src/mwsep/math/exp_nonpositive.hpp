/// @file exp_nonpositive.hpp
/// @brief exp(x) for x <= 0, branch-free so that compilers vectorise it and GPUs run it without divergence.
///
/// Every exponential of the model has a non-positive argument: -d^2 / (2 sigma^2) for the streams and
/// -(dg)^2 / 0.72 for the magnitude Gaussian. That removes overflow and infinities from the problem, so
/// exp needs no special-case branches: reduce x = n ln2 + r with |r| <= ln2 / 2, evaluate e^r by its
/// degree-13 Taylor polynomial (truncation error below 5e-18, under a tenth of an ulp), and scale by 2^n
/// as the product of two powers of two so that results that underflow into subnormals, or to 0 below
/// about -745.1, come out right without a branch.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "mwsep/math/hd.hpp"

namespace mwsep::math {

/// a * b + c, fused where the target has a fused multiply-add (always on GPUs).
MWSEP_HD double mul_add(double a, double b, double c) {
#if defined(__CUDA_ARCH__) || defined(__FMA__)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
}

/// a * b + c in single precision, fused where the target has a fused multiply-add.
MWSEP_HD float mul_add(float a, float b, float c) {
#if defined(__CUDA_ARCH__) || defined(__FMA__)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
}

/// Reinterprets the bits of a double as a signed 64-bit integer and back.
MWSEP_HD std::int64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
    return __double_as_longlong(x);
#else
    std::int64_t i;
    std::memcpy(&i, &x, sizeof i);
    return i;
#endif
}
/// The inverse of bits_of(): the double whose bits are @p i. exp_nonpositive() builds its powers of two with it.
MWSEP_HD double double_of(std::int64_t i) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(i);
#else
    double x;
    std::memcpy(&x, &i, sizeof x);
    return x;
#endif
}

/// exp(x) for x <= 0 (x > 0 is outside the contract). Error at most about 1 ulp against the correctly
/// rounded value over the normal range; returns 0 for x below -746 and for -inf.
MWSEP_HD double exp_nonpositive(double x) {
    constexpr double log2e = 1.4426950408889634074;
    constexpr double ln2_hi = 6.93147180369123816490e-01;  // high bits of ln 2: n * ln2_hi is exact
    constexpr double ln2_lo = 1.90821492927058770002e-10;
    constexpr double shifter = 6755399441055744.0;          // 1.5 * 2^52: adding it rounds to an integer
    x = x < -746.0 ? -746.0 : x;                            // also maps -inf to -746, whose exp rounds to 0
    const double shifted = mul_add(x, log2e, shifter);
    const double n = shifted - shifter;                     // nearest integer to x / ln 2, in [-1077, 0]
    double r = mul_add(-n, ln2_hi, x);
    r = mul_add(-n, ln2_lo, r);                             // |r| <= ln2 / 2, accurate to ~1e-25
    double p = 1.0 / 6227020800.0;                          // 1/13!
    p = mul_add(p, r, 1.0 / 479001600.0);
    p = mul_add(p, r, 1.0 / 39916800.0);
    p = mul_add(p, r, 1.0 / 3628800.0);
    p = mul_add(p, r, 1.0 / 362880.0);
    p = mul_add(p, r, 1.0 / 40320.0);
    p = mul_add(p, r, 1.0 / 5040.0);
    p = mul_add(p, r, 1.0 / 720.0);
    p = mul_add(p, r, 1.0 / 120.0);
    p = mul_add(p, r, 1.0 / 24.0);
    p = mul_add(p, r, 1.0 / 6.0);
    p = mul_add(p, r, 0.5);
    p = mul_add(p, r, 1.0);
    p = mul_add(p, r, 1.0);
    // 2^n as 2^(n/2) * 2^(n - n/2): both factors are normal numbers, so only the final product rounds
    // into the subnormal range.
    const std::int64_t ni = bits_of(shifted) - bits_of(shifter);
    const std::int64_t half = ni / 2;
    const double scale1 = double_of((half + 1023) << 52);
    const double scale2 = double_of((ni - half + 1023) << 52);
    return p * scale1 * scale2;
}

}  // namespace mwsep::math
