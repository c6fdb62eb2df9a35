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
/// Ranges. The argument must not be NaN (the kernel checks its coefficients once per cell instead of every
/// argument). A hair above 0 (rounding of the quadratic) is fine: it gives exp of it, a hair above 1.
/// At -706.5 (x_steps = -260 992) and below, and for -inf, the result is 0 instead of going subnormal:
/// an absolute error below 2^-1019 per term. The test is an integer comparison of the argument's high
/// word, so the FP64 pipe, the kernel's bound, does not pay for it.
///
/// Instruction budget on a GPU per exponential: an add and two subtractions, four fused multiply-adds of
/// the polynomial and one for the result (FP64 pipe); a few integer operations for the table offset, the
/// scale and the underflow test; one shared-memory load.
#pragma once

#include <cstdint>

#include "mwsep/math/exp_nonpositive.hpp"
#include "mwsep/math/hd.hpp"

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

/// The coefficients c_n = (ln2 / 256)^n / n! of the polynomial (Taylor; the first omitted term is below
/// 3.8e-17). A GPU kernel passes a copy in its arguments, so that the multiply-adds read them straight
/// from the constant bank instead of building each 64-bit constant in registers.
struct ExpPolynomial {
    double c1 = 2.7076061740622863e-03;   ///< (ln2/256)
    double c2 = 3.6655655969101062e-06;   ///< (ln2/256)^2 / 2
    double c3 = 3.3083026805413713e-09;   ///< (ln2/256)^3 / 6
    double c4 = 2.2393951908751570e-12;   ///< (ln2/256)^4 / 24
};

/// The polynomial part: exp(f ln2 / 256) - 1 + rho for |f| <= 1/2, as f (c1 + f (c2 + f (c3 + f c4))) + rho.
MWSEP_HD double exp_table_poly(double f, double rho, const ExpPolynomial& c) {
    double p = mul_add(c.c4, f, c.c3);
    p = mul_add(p, f, c.c2);
    p = mul_add(p, f, c.c1);
    return mul_add(p, f, rho);
}

/// v * 2^e for a normal v whose product stays normal, by adding e to the exponent field (high word only).
MWSEP_HD double scale_by_power_of_two(double v, std::int32_t e) {
#if defined(__CUDA_ARCH__)
    return __hiloint2double(__double2hiint(v) + e * (1 << 20), __double2loint(v));
#else
    return double_of(bits_of(v) + (static_cast<std::int64_t>(e) << 52));
#endif
}

/// exp(x_steps ln2 / 256) for finite x_steps <= about 0, with a table from ExpTable::fill().
MWSEP_HD double exp_from_steps(double x_steps, const ExpTableEntry* table, const ExpPolynomial& poly = {}) {
    constexpr double shifter = 6755399441055744.0;   // 1.5 * 2^52: adding it rounds to an integer
    // High word of -260 992 = -1019.5 * 256. As unsigned numbers the high words of negative doubles grow
    // with their magnitude, and those of positive ones stay below 2^31, so one comparison finds every
    // argument at or below -260 992 (and -inf).
    constexpr std::uint32_t underflow_from = 0xC10FDC00u;
    const auto high = static_cast<std::uint32_t>(static_cast<std::uint64_t>(bits_of(x_steps)) >> 32);
    const double shifted = x_steps + shifter;
    const double k_real = shifted - shifter;          // the nearest integer to x_steps (exact)
    const double f = x_steps - k_real;                // exact: |f| <= 1/2
    const std::int32_t k = static_cast<std::int32_t>(bits_of(shifted));  // low word: k in two's complement
    const ExpTableEntry t = table[k & (ExpTable::size - 1)];
    const double value = mul_add(t.value, exp_table_poly(f, t.correction, poly), t.value);  // the one rounding
    const double scaled = scale_by_power_of_two(value, k >> ExpTable::bits);  // arithmetic shift: floor(k / 256)
    return high >= underflow_from ? 0.0 : scaled;  // below the threshold k and the scale are meaningless
}

}  // namespace mwsep::math
