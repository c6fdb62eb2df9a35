/// @file exp_lean.hpp
/// @brief Two leaner forms of the table exponential of exp_table.hpp, for the `modern-*` variants that
/// cut the integer work around the FP64 pipe.
///
/// exp_from_steps() spends, beside its FP64 work, three integer operations on the 2^k scale (shift, shift,
/// add to the high word after the result) and three on the underflow test (a compare and two selects).
/// Both forms here do each in one:
///  - **Pre-biased entries.** With 2^b entries, j = k mod 2^b and the scale 2^(k >> b), the scaled entry's
///    high word is hi(t_j) + ((k >> b) << 20) = hi(t_j) - (j << (20 - b)) + (k << (20 - b)). The table
///    stores the first two terms (the "biased" high word), so scaling the entry is one shift-and-add of k,
///    applied before the last fused multiply-add: 2^e fma(t, p, t) = fma(2^e t, p, 2^e t) exactly while the
///    result is normal.
///  - **A clamp instead of a test.** k is clamped from below at a value whose scaled entries are still
///    normal. An argument at or below that value then gives a number near 2^-1019.5 instead of 0: an
///    absolute error below 2^-1019 per term, as the original's flush to 0. The clamp needs k exact, which
///    holds while the argument is above -2^31 table steps; the kernel checks that once per cell (the
///    exponent is a concave quadratic in r, lowest at an end of the line of sight) and takes a guarded
///    path where it does not hold.
///
/// exp_biased() keeps exp_from_steps()'s 256 sixteen-byte entries and degree-4 polynomial: above the clamp
/// it returns the same bits. exp_table8() uses 1024 eight-byte entries (half the shared-memory traffic per
/// lookup) and a degree-3 polynomial, economised on |f| <= 1/2 step (its truncation below 9.4e-17): one FP64
/// operation fewer, within about 1.5 ulp instead of 1 (tests/test_point_math.cpp measures both against
/// long double over 1e8 arguments). That is a different rounding of the same sum, not a different sum: the
/// kernel's integrals move by a few 1e-16 relative.
#pragma once

#include <cstdint>

#include "mwsep/math/exp_nonpositive.hpp"
#include "mwsep/math/exp_table.hpp"
#include "mwsep/math/hd.hpp"

namespace mwsep::math {

/// Adds the 32-bit integer @p add to the high word of @p v (modulo 2^32): the one shift-and-add that
/// scales a pre-biased entry.
MWSEP_HD double add_to_high_word(double v, std::uint32_t add) {
#if defined(__CUDA_ARCH__)
    return __hiloint2double(static_cast<int>(static_cast<std::uint32_t>(__double2hiint(v)) + add), __double2loint(v));
#else
    const auto bits = static_cast<std::uint64_t>(bits_of(v));
    const std::uint32_t high = static_cast<std::uint32_t>(bits >> 32) + add;
    return double_of(static_cast<std::int64_t>((static_cast<std::uint64_t>(high) << 32) | (bits & 0xFFFFFFFFu)));
#endif
}

/// The arguments (in table steps) at or above which the clamp of both forms is exact: k fits 32 bits.
inline constexpr double lean_exp_domain = -0x1p30;

/// The 256-entry table of exp_from_steps() with pre-biased high words (see the file comment).
struct ExpTableBiased {
    static constexpr std::int32_t k_min = -260992;  ///< clamp of k: 2^(-1020) 2^(1/2), still normal
    /// Fills ExpTable::size entries: ExpTable::fill()'s, each value's high word less (j << 12).
    static void fill(ExpTableEntry* table);
};

/// exp(x_steps ln2 / 256) for x_steps in [lean_exp_domain, about 0], from an ExpTableBiased table: the
/// bits of exp_from_steps() above -260 992 steps, a number below 2^-1019 at and below it.
MWSEP_HD double exp_biased(double x_steps, const ExpTableEntry* biased, const ExpPolynomial& poly = {}) {
    constexpr double shifter = 6755399441055744.0;  // 1.5 * 2^52
    const double shifted = x_steps + shifter;
    const double f = x_steps - (shifted - shifter);  // exact, |f| <= 1/2
    auto k = static_cast<std::int32_t>(bits_of(shifted));
    k = k < ExpTableBiased::k_min ? ExpTableBiased::k_min : k;
    const ExpTableEntry t = biased[k & (ExpTable::size - 1)];
    const double scaled = add_to_high_word(t.value, static_cast<std::uint32_t>(k) << (20 - ExpTable::bits));
    return mul_add(scaled, exp_table_poly(f, t.correction, poly), scaled);
}

/// The 1024-entry, eight-byte table of exp_table8(), pre-biased, and its scale.
struct ExpTable8 {
    static constexpr int bits = 10;                 ///< log2 of the entry count
    static constexpr int size = 1 << bits;          ///< entries: 2^(j/1024) for j = 0..1023
    static constexpr double steps_per_unit = 1477.3197218702985;  ///< 1024 / ln 2, rounded
    static constexpr std::int32_t k_min = -1020 * 1024;           ///< clamp of k: 2^(-1020), still normal
    /// Fills @ref size doubles: 2^(j/1024) rounded (in long double first), high word less (j << 10).
    static void fill(double* table);
};

/// The degree-3 polynomial of exp_table8() in the step fraction f: exp(f ln2 / 1024) - 1 ~ f (a1 + f (a2 +
/// f a3)), the Taylor series with its u^4 term replaced by the best multiple of u^2 on |u| <= h = ln2 / 2048
/// (u = f ln2 / 1024): u^4 ~ (2 sqrt 2 - 2) h^2 u^2, off by at most (3 - 2 sqrt 2) h^4, so the truncation is
/// below 9.4e-17 and the polynomial is 0 at f = 0 (exp(0) = 1 exactly). A kernel passes a copy in its
/// arguments (constant bank).
struct ExpPolynomial3 {
    double a1 = 6.7690154351557159e-04;   ///< ln2 / 1024
    double a2 = 2.2909785161857667e-07;   ///< (1/2 + (2 sqrt 2 - 2) h^2 / 24) a1^2
    double a3 = 5.1692229383458924e-11;   ///< a1^3 / 6
};

/// exp(x_steps ln2 / 1024) for x_steps in [lean_exp_domain, about 0], from an ExpTable8 table: within about
/// 1.5 ulp above -1 044 480 steps (-707.9), a number below 2^-1019 at and below it.
MWSEP_HD double exp_table8(double x_steps, const double* biased, const ExpPolynomial3& c = {}) {
    constexpr double shifter = 6755399441055744.0;  // 1.5 * 2^52
    const double shifted = x_steps + shifter;
    const double f = x_steps - (shifted - shifter);  // exact, |f| <= 1/2
    auto k = static_cast<std::int32_t>(bits_of(shifted));
    k = k < ExpTable8::k_min ? ExpTable8::k_min : k;
    const double scaled = add_to_high_word(biased[k & (ExpTable8::size - 1)],
                                           static_cast<std::uint32_t>(k) << (20 - ExpTable8::bits));
    const double p = mul_add(mul_add(c.a3, f, c.a2), f, c.a1) * f;
    return mul_add(scaled, p, scaled);
}

}  // namespace mwsep::math
