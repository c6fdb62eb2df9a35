/// @file exp_table.hpp
/// @brief exp(x) for x <= 0 with a 256-entry table of 2^(j/256), for the modern double-precision kernel.
///
/// Why a second exponential. exp_nonpositive() needs no table and vectorises on a CPU, but costs about 16
/// double-precision operations; on a GPU the FP64 pipe is the bound (ncu_fp64.csv), and a table in shared
/// memory is nearly free there. With x = (k + f) ln2 / 256, k an integer and |f| <= 1/2:
///   exp(x) = 2^(k >> 8) * 2^((k & 255) / 256) * exp(f ln2 / 256),
/// where the middle factor is a table entry and the last one, with |f ln2 / 256| <= 0.00136, needs only
/// a degree-4 polynomial (truncation error below 4e-17 relative).
///
/// The caller passes the argument already in table steps, x_steps = x * 256 / ln2: the modern kernel
/// folds that factor into the coefficients of its quadratic exponents once per cell, so that per point the
/// reduction is an add and two subtractions, all exact. Each table entry is a rounded value t_j and the
/// relative rounding error rho_j = (2^(j/256) - t_j) / t_j, which enters the polynomial as its constant
/// term, so the result t_j (1 + p + rho_j) rounds once, in the last fused multiply-add: within 1 ulp of
/// exp(x_steps ln2 / 256) (tested against long-double exp over 1e8 arguments, tests/test_point_math.cpp).
///
/// Ranges: a hair above 0 is read as 0 (rounding of the quadratic); below -706.5 (x_steps < -260 992)
/// the result is flushed to 0 instead of going subnormal, an absolute error below 2^-1018 per term;
/// -inf gives 0 and NaN stays NaN.
#pragma once

#include <cstdint>

#include "math/exp_nonpositive.hpp"
#include "math/hd.hpp"

namespace mwsep::math {

/// One table entry: 2^(j/256) = value (1 + correction). Aligned so that a GPU loads it in one access.
struct alignas(16) ExpTableEntry {
    double value;       ///< 2^(j/256) rounded to double
    double correction;  ///< its relative rounding error
};

/// Table size and the scale from natural units to table steps.
struct ExpTable {
    static constexpr int bits = 8;                      ///< log2 of the entry count
    static constexpr int size = 1 << bits;              ///< entries: 2^(j/256) for j = 0..255
    static constexpr double steps_per_unit = 369.3299304675746;  ///< 256 / ln 2, rounded
    /// Fills the @ref size entries of @p table (computed in long double).
    static void fill(ExpTableEntry* table);
};

/// The polynomial part: exp(f ln2 / 256) - 1 + rho for |f| <= 1/2, as f (c1 + f (c2 + f (c3 + f c4))) + rho
/// with c_n = (ln2 / 256)^n / n! (Taylor; the first omitted term is below 3.8e-17).
MWSEP_HD double exp_table_poly(double f, double rho) {
    constexpr double c1 = 2.7076061740622863e-03;   // (ln2/256)
    constexpr double c2 = 3.6655655969101062e-06;   // (ln2/256)^2 / 2
    constexpr double c3 = 3.3083026805413713e-09;   // (ln2/256)^3 / 6
    constexpr double c4 = 2.2393951908751570e-12;   // (ln2/256)^4 / 24
    double p = mul_add(c4, f, c3);
    p = mul_add(p, f, c2);
    p = mul_add(p, f, c1);
    return mul_add(p, f, rho);
}

/// exp(x_steps ln2 / 256) for x_steps <= 0, with a table from ExpTable::fill().
MWSEP_HD double exp_from_steps(double x_steps, const ExpTableEntry* table) {
    constexpr double shifter = 6755399441055744.0;   // 1.5 * 2^52: adding it rounds to an integer
    constexpr std::int32_t flush_hi = 0x410FDC00;     // high word of 260 992 = 1019.5 * 256
    const double argument = x_steps;
    const std::int64_t bits = bits_of(x_steps);
    const std::int32_t hi = static_cast<std::int32_t>(bits >> 32);
    const std::int32_t magnitude_hi = hi & 0x7fffffff;
    const bool is_nan = (bits & 0x7fffffffffffffffLL) > 0x7ff0000000000000LL;
    // Positive arguments (rounding noise) become 0; the comparisons are on integers, not on the FP64 pipe.
    x_steps = hi >= 0 ? 0.0 : x_steps;
    const bool flush = magnitude_hi >= flush_hi;      // |x_steps| >= 260 992, or -inf
    const double shifted = x_steps + shifter;
    const double k_real = shifted - shifter;          // the nearest integer to x_steps (exact)
    const double f = x_steps - k_real;                // exact: |f| <= 1/2
    const std::int32_t k = static_cast<std::int32_t>(bits_of(shifted));  // low word: k in two's complement
    const int j = k & (ExpTable::size - 1);
    const ExpTableEntry t = table[j];
    const double value = mul_add(t.value, exp_table_poly(f, t.correction), t.value);  // the one rounding
    // Multiply by 2^(k >> 8) by adding to the exponent field; for non-flushed arguments the result stays normal.
    const std::int64_t scaled = bits_of(value) + (static_cast<std::int64_t>(k >> ExpTable::bits) << 52);
    const double result = flush ? 0.0 : double_of(scaled);
    return is_nan ? argument : result;
}

}  // namespace mwsep::math
