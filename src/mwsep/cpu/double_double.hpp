/// @file double_double.hpp
/// @brief Double-double arithmetic (a value as the unevaluated sum hi + lo of two doubles, about 106 bits)
/// for the construction of the compressed quadrature's Gauss rules (compressed_rule_fast.cpp): scalars, and
/// eight-lane vectors for the loops over a measure's points and a rule's nodes.
///
/// Every operation is built from IEEE additions and multiplications and the exact error-free transforms
/// (the rounding error of a sum by Knuth's two-sum, that of a product by one fused multiply-add or, where the
/// instruction set has none, by Dekker's splitting, which gives the same exact error). The file that
/// includes this header is compiled without contraction into fused multiply-adds (-ffp-contract=off, the
/// project's setting), and the eight lanes are explicit (a GCC/Clang vector type of eight doubles that
/// the compiler maps onto whatever registers the target has). The vector functions fuse multiply-adds where
/// written (fma below); so every target with FMA gives the same results bit for bit, AVX-512 or AVX2 alike,
/// and a target without it differs only in the last bits of those low parts.
///
/// The "lite" products and sums below keep the low parts with plain double arithmetic (fused multiply-adds
/// where the target has them): their relative error is that of double, about 2^-106 of the whole value.
#pragma once

#include <cmath>
#include <cstring>

#if defined(__AVX512F__) || defined(__FMA__)
#include <immintrin.h>
#endif

// Passing 64-byte vectors by value changes the ABI between targets with and without AVX-512; g++ says so
// once per function. These functions are inline, internal to one translation unit at a time.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace mwsep::cpu::dd {

/// A double-double scalar: the value hi + lo, |lo| <= ulp(hi) / 2 after normalisation.
struct Dd {
    double hi = 0;  ///< leading part
    double lo = 0;  ///< trailing part
};

/// The exact rounding error of a * b: a * b - fl(a * b), for @p p = fl(a * b).
inline double product_error(double a, double b, double p) {
#if defined(__FMA__)
    return std::fma(a, b, -p);
#else
    constexpr double split = 134217729.0;  // 2^27 + 1
    const double ca = split * a, ah = ca - (ca - a), al = a - ah;
    const double cb = split * b, bh = cb - (cb - b), bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}

/// s + e = a + b exactly, s = fl(a + b).
inline Dd two_sum(double a, double b) {
    const double s = a + b;
    const double bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}
/// s + e = a + b exactly for |a| >= |b| (or a = 0).
inline Dd fast_two_sum(double a, double b) {
    const double s = a + b;
    return {s, b - (s - a)};
}
/// p + e = a * b exactly.
inline Dd two_prod(double a, double b) {
    const double p = a * b;
    return {p, product_error(a, b, p)};
}
/// a + b, normalised (both parts of each summed with their errors).
inline Dd operator+(Dd a, Dd b) {
    const Dd s = two_sum(a.hi, b.hi);
    const Dd t = two_sum(a.lo, b.lo);
    Dd u = fast_two_sum(s.hi, s.lo + t.hi);
    return fast_two_sum(u.hi, u.lo + t.lo);
}
/// -a, exactly.
inline Dd operator-(Dd a) { return {-a.hi, -a.lo}; }
/// a - b, as a + (-b).
inline Dd operator-(Dd a, Dd b) { return a + (-b); }
/// a * b, the leading product exact and the cross terms added once.
inline Dd operator*(Dd a, Dd b) {
    const Dd p = two_prod(a.hi, b.hi);
    return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}
/// a * b for a double @p b.
inline Dd operator*(Dd a, double b) {
    const Dd p = two_prod(a.hi, b);
    return fast_two_sum(p.hi, p.lo + a.lo * b);
}
/// a / b by three quotient digits, each corrected against the remainder.
inline Dd operator/(Dd a, Dd b) {
    const double q1 = a.hi / b.hi;
    const Dd r = a - b * q1;
    const double q2 = r.hi / b.hi;
    const Dd r2 = r - b * q2;
    const double q3 = r2.hi / b.hi;
    const Dd q = fast_two_sum(q1, q2);
    return q + Dd{q3, 0};
}
/// The square root of @p a by one Newton step from the double root (the double root for a ≤ 0).
inline Dd sqrt(Dd a) {
    if (!(a.hi > 0)) return {std::sqrt(a.hi), 0};
    const double x = std::sqrt(a.hi);
    const Dd r = a - two_prod(x, x);
    return fast_two_sum(x, r.hi / (2 * x));
}
/// a * 2^e exactly (no overflow or underflow in the uses here).
inline Dd ldexp(Dd a, int e) { return {std::ldexp(a.hi, e), std::ldexp(a.lo, e)}; }
/// From long double (64-bit significand): exact.
inline Dd from_ld(long double x) {
    const double hi = static_cast<double>(x);
    return {hi, static_cast<double>(x - hi)};
}
/// To long double, rounded once.
inline long double to_ld(Dd a) { return static_cast<long double>(a.hi) + static_cast<long double>(a.lo); }

/// Eight lanes of doubles.
typedef double v8 __attribute__((vector_size(64)));
/// Number of lanes of v8.
inline constexpr int lanes = 8;

/// @p a in every lane.
inline v8 splat(double a) { return v8{a, a, a, a, a, a, a, a}; }
/// Loads eight doubles from @p p (no alignment needed).
inline v8 load(const double* p) {
    v8 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
/// Stores eight doubles to @p p.
inline void store(double* p, v8 v) { std::memcpy(p, &v, sizeof v); }

/// Eight 64-bit indices.
typedef long long index8 __attribute__((vector_size(64)));

/// table[index[l]] for each lane (a gather instruction where there is one; the values are the same).
inline v8 gather(const double* table, index8 index) {
#if defined(__AVX512F__)
    return reinterpret_cast<v8>(
        _mm512_mask_i64gather_pd(_mm512_setzero_pd(), 0xff, reinterpret_cast<__m512i>(index), table, 8));
#else
    v8 v;
    for (int l = 0; l < lanes; ++l) v[l] = table[index[l]];
    return v;
#endif
}

/// The exact rounding error of a * b lane by lane, for @p p = fl(a * b).
inline v8 product_error(v8 a, v8 b, v8 p) {
#if defined(__AVX512F__)
    return reinterpret_cast<v8>(_mm512_fmsub_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b),
                                                reinterpret_cast<__m512d>(p)));
#elif defined(__FMA__)
    __m256d a2[2], b2[2], p2[2], r2[2];
    std::memcpy(a2, &a, sizeof a);
    std::memcpy(b2, &b, sizeof b);
    std::memcpy(p2, &p, sizeof p);
    r2[0] = _mm256_fmsub_pd(a2[0], b2[0], p2[0]);
    r2[1] = _mm256_fmsub_pd(a2[1], b2[1], p2[1]);
    v8 r;
    std::memcpy(&r, r2, sizeof r);
    return r;
#else
    const v8 split = splat(134217729.0);
    const v8 ca = split * a, ah = ca - (ca - a), al = a - ah;
    const v8 cb = split * b, bh = cb - (cb - b), bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
}

/// a * b + c lane by lane, rounded once where the target has a fused multiply-add (twice otherwise).
inline v8 fma(v8 a, v8 b, v8 c) {
#if defined(__AVX512F__)
    return reinterpret_cast<v8>(_mm512_fmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b),
                                                reinterpret_cast<__m512d>(c)));
#elif defined(__FMA__)
    __m256d a2[2], b2[2], c2[2], r2[2];
    std::memcpy(a2, &a, sizeof a);
    std::memcpy(b2, &b, sizeof b);
    std::memcpy(c2, &c, sizeof c);
    r2[0] = _mm256_fmadd_pd(a2[0], b2[0], c2[0]);
    r2[1] = _mm256_fmadd_pd(a2[1], b2[1], c2[1]);
    v8 r;
    std::memcpy(&r, r2, sizeof r);
    return r;
#else
    return a * b + c;
#endif
}

/// Eight double-double lanes.
struct V8 {
    v8 hi;  ///< leading parts
    v8 lo;  ///< trailing parts
};
/// s + e = a + b exactly, per lane.
inline V8 two_sum(v8 a, v8 b) {
    const v8 s = a + b;
    const v8 bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
}
/// s + e = a + b exactly, per lane, where |a| ≥ |b|.
inline V8 fast_two_sum(v8 a, v8 b) {
    const v8 s = a + b;
    return {s, b - (s - a)};
}
/// a - b, normalised; the low parts in plain double ("lite").
inline V8 sub(V8 a, V8 b) {
    const V8 s = two_sum(a.hi, -b.hi);
    return fast_two_sum(s.hi, s.lo + (a.lo - b.lo));
}
/// a - b without the final normalisation (the pair still sums to the difference).
inline V8 sub_raw(V8 a, V8 b) {
    const V8 s = two_sum(a.hi, -b.hi);
    return {s.hi, s.lo + (a.lo - b.lo)};
}
/// a * b (double-double by double-double), unnormalised.
inline V8 mul_raw(V8 a, V8 b) {
    const v8 p = a.hi * b.hi;
    return {p, fma(a.lo, b.hi, fma(a.hi, b.lo, product_error(a.hi, b.hi, p)))};
}
/// a * b (double-double by double), unnormalised.
inline V8 mul_raw(V8 a, v8 b) {
    const v8 p = a.hi * b;
    return {p, fma(a.lo, b, product_error(a.hi, b, p))};
}
/// a^2, unnormalised.
inline V8 sqr_raw(V8 a) {
    const v8 p = a.hi * a.hi;
    return {p, fma(a.hi + a.hi, a.lo, product_error(a.hi, a.hi, p))};
}
/// a * b, normalised.
inline V8 mul(V8 a, V8 b) {
    const V8 p = mul_raw(a, b);
    return fast_two_sum(p.hi, p.lo);
}
/// 1 / a, normalised (one Newton correction of the double reciprocal).
inline V8 recip(V8 a) {
    const v8 q = splat(1) / a.hi;
    const v8 p = a.hi * q;
    const v8 r = fma(-a.lo, q, (splat(1) - p) - product_error(a.hi, q, p));  // 1 - a q; 1 - p is exact
    return fast_two_sum(q, r * q);
}
/// acc += x, the running sum kept as an unnormalised pair (the leading part by two-sum, the errors and low
/// parts added in plain double).
inline void accumulate(V8& acc, V8 x) {
    const V8 s = two_sum(acc.hi, x.hi);
    acc.hi = s.hi;
    acc.lo += s.lo + x.lo;
}
/// The eight lanes' sum, as a normalised scalar (lanes added in order).
inline Dd reduce(V8 a) {
    Dd s;
    for (int l = 0; l < lanes; ++l) s = s + Dd{a.hi[l], a.lo[l]};
    return s;
}

}  // namespace mwsep::cpu::dd

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
