/// @file compressed_cell.hpp
/// @brief One cell's component sums by the compressed line-of-sight quadrature, with its error controller.
/// Host and device (the compressed CUDA kernel calls the same functions as the CPU integrator).
///
/// The controller, per cell and component:
///  1. Resolution guard. Each integrand has one peak along the line of sight: the background where the
///     flattened radius is smallest, a stream where its concave exponent is largest. From the quadratic of
///     the line of sight (math/sightline.hpp) the peak's position x_p = ln r_p and its width in x are known
///     (background: the distance over which r_g grows from its minimum by a factor sqrt(2); stream: one
///     standard deviation of its Gaussian in r), both divided by r_p. The first level is the smallest one
///     whose nodes around x_p are no farther apart than that width, so no rule can step over the peak.
///     If no level but the last qualifies, the component takes the exact sum.
///  2. Nested comparison. Q_k (the level-k rule) and Q_{k+1} (twice the nodes); the estimate is
///     |Q_{k+1} - Q_k|, an estimate of the error of Q_k and so, for an integrand the rules resolve, a
///     generous one of the error of Q_{k+1}, which is the value kept. It is accepted when
///     estimate <= (tolerance + (n_k + n_{k+1}) 2^-53) |Q_{k+1}| + floor (the middle term bounds the rounding
///     of the two sums of positive terms: a smaller difference says nothing about convergence), where floor
///     is 0 for the background and n_r times the
///     stream's skip threshold (stream_skipping.hpp) for a stream, a term whose total over every cell is
///     below 2^-60 of the stream's integral. Otherwise the next level is tried; past the last level the
///     component falls back to the exact sum over every point (with the exact path's rigorous skipping).
/// Summed over the cells the accepted estimates are at most (tolerance + the rounding allowance) x (sum of
/// |cell values|) plus
/// 2^-60 of the integral: the stated error of the total, reported beside the measured one.
#pragma once

#include <cmath>

#include "mwsep/math/hd.hpp"
#include "mwsep/math/point.hpp"
#include "mwsep/math/sightline.hpp"

// The rules' sums vectorise in the CPU integrator, which is compiled with -fopenmp-simd and defines
// MWSEP_COMPRESSED_SIMD (the order of the additions is then the compiler's, which changes only rounding);
// elsewhere, the device code included, they loop in node order.
#if defined(MWSEP_COMPRESSED_SIMD) && !defined(__CUDACC__)
#define MWSEP_RULE_SUM_SIMD _Pragma("omp simd reduction(+ : sum)")
#else
#define MWSEP_RULE_SUM_SIMD
#endif

namespace mwsep::cpu {

/// A ladder of rules laid out flat (host vectors or device arrays): level k has size[k] nodes starting at
/// offset[k] in r, weight and x.
struct LadderView {
    int levels = 0;           ///< number of levels
    const int* size = nullptr;    ///< nodes per level
    const int* offset = nullptr;  ///< first node of each level in the flat arrays
    const double* r = nullptr;    ///< node distances [kpc], ascending within a level
    const double* weight = nullptr;  ///< node weights
    const double* x = nullptr;    ///< ln of the node distances
    double x_min = 0;  ///< ln of the measure's smallest distance
    double x_max = 0;  ///< ln of its largest distance
};

/// The outcome of one component of one cell.
struct ComponentOutcome {
    double value = 0;     ///< the accepted rule's sum (without ids), or 0 where the component falls back
    double estimate = 0;  ///< |Q_{k+1} - Q_k| of the accepted pair (without ids)
    int level = -1;       ///< the accepted level k + 1, or -1: the exact sum is needed
    int evaluations = 0;  ///< integrand evaluations spent
};

/// Largest gap between neighbouring nodes of level @p k around @p xp (the gap containing it and the two
/// beside it; outside the nodes, the outermost gap together with the distance to the end of the measure).
MWSEP_HD double local_gap(const LadderView& v, int k, double xp) {
    const double* x = v.x + v.offset[k];
    const int n = v.size[k];
    int lo = 0, hi = n;  // first node above xp
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (x[mid] <= xp) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return fmax(x[0] - v.x_min, x[1] - x[0]);
    if (lo == n) return fmax(v.x_max - x[n - 1], x[n - 1] - x[n - 2]);
    double g = x[lo] - x[lo - 1];
    if (lo >= 2) g = fmax(g, x[lo - 1] - x[lo - 2]);
    if (lo + 1 < n) g = fmax(g, x[lo + 1] - x[lo]);
    return g;
}

/// The first level whose nodes resolve a peak at distance @p r_peak of width @p width_r [kpc] (-1: only
/// the last level or none does, so there is no pair to compare).
MWSEP_HD int first_level(const LadderView& v, double r_peak, double width_r) {
    const double lo = exp(v.x_min), hi = exp(v.x_max);
    const double rp = r_peak < lo ? lo : (r_peak > hi ? hi : r_peak);
    const double width_x = width_r / rp;
    if (!(width_x > 0)) return -1;  // NaN or no width: nothing can be resolved
    const double xp = log(rp);
    for (int k = 0; k + 1 < v.levels; ++k)
        if (local_gap(v, k, xp) <= width_x) return k;
    return -1;
}

/// The background's peak and width along the line of sight with flattened radius squared @p rq.
MWSEP_HD int background_first_level(const LadderView& v, const math::Quadratic<double>& rq) {
    const double vertex = -rq.b / (2 * rq.a);
    const double min_sq = rq(vertex);
    return first_level(v, vertex, sqrt(fmax(min_sq, 0.0) / rq.a));
}

/// A stream's peak and width along the line of sight with exponent @p e (a concave quadratic in vertex form:
/// the peak at its vertex, the width one standard deviation of its Gaussian in r).
MWSEP_HD int stream_first_level(const LadderView& v, const math::VertexQuadratic<double>& e) {
    if (!(e.a < 0)) return 0;  // no curvature in r (the sight line along the axis): the exponent is flat
    return first_level(v, e.v, 1 / sqrt(-2 * e.a));
}

/// The level-@p k rule's sum of the Hernquist background 1 / (r_g (r_g + r0)^3).
MWSEP_HD double background_rule_sum(const LadderView& v, int k, const math::Quadratic<double>& rq, double r0) {
    const double* r = v.r + v.offset[k];
    const double* w = v.weight + v.offset[k];
    const int n = v.size[k];
    double sum = 0;
    MWSEP_RULE_SUM_SIMD
    for (int i = 0; i < n; ++i) sum += w[i] / math::hernquist_denominator(sqrt(rq(r[i])), r0);
    return sum;
}

/// The level-@p k rule's sum of a stream's exp(e(r)), with the exponent in vertex form.
MWSEP_HD double stream_rule_sum(const LadderView& v, int k, const math::VertexQuadratic<double>& e) {
    const double* r = v.r + v.offset[k];
    const double* w = v.weight + v.offset[k];
    const int n = v.size[k];
    double sum = 0;
    MWSEP_RULE_SUM_SIMD
    for (int i = 0; i < n; ++i) sum += w[i] * math::stream_term_exp(e(r[i]));
    return sum;
}

// [compressed-controller-begin]
/// The controller of one component: from level @p start, compare each level with the next until the
/// estimate is accepted (tolerance relative, @p floor absolute, both on the sums without the cell's ids
/// factor) or the ladder ends. @p sum(k) is the level-k rule's sum.
template <class Sum>
MWSEP_HD ComponentOutcome control(const LadderView& v, int start, double tolerance, double floor, const Sum& sum) {
    ComponentOutcome out;
    if (start < 0) return out;
    double lo = sum(start);
    out.evaluations = v.size[start];
    for (int k = start; k + 1 < v.levels; ++k) {
        const double hi = sum(k + 1);
        out.evaluations += v.size[k + 1];
        const double estimate = fabs(hi - lo);
        // The rounding of the two sums (positive terms: at most (n_k + n_{k+1}) ulps of the sum, the exp's and
        // products' errors included): a difference below it says nothing more about convergence.
        const double rounding = (v.size[k] + v.size[k + 1]) * 0x1p-53 * fabs(hi);
        if (estimate <= tolerance * fabs(hi) + rounding + floor) {  // false for a NaN: the exact sum decides
            out.value = hi;
            out.estimate = estimate;
            out.level = k + 1;
            return out;
        }
        lo = hi;
    }
    return out;
}
// [compressed-controller-end]

}  // namespace mwsep::cpu
