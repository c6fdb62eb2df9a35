// The fast construction of the compressed quadrature's Gauss rules (see compressed_rule.hpp and
// docs/mwsep/compressed.md): the measure reduced block by block, the Stieltjes recurrence on the reduced
// measure in double-double, each level's zeros by Newton's method bracketed by Sturm counts, refined and
// weighted in double-double. Compiled for vector instructions with fused multiply-adds (the build's own
// instruction set, or AVX2 and FMA in a portable build, which then checks the processor before calling in
// here: compressed_rule.cpp); the arithmetic is spelled out (fused where written, nothing contracted
// otherwise), so every build on a processor with FMA gives the same rules bit for bit.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "mwsep/cpu/compressed_rule.hpp"
#include "mwsep/cpu/compressed_rule_detail.hpp"
#include "mwsep/cpu/double_double.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"  // eight-lane vectors by value in internal inline helpers
#endif

namespace mwsep::cpu {

namespace {

using dd::Dd;
using detail::Frame;
using dd::V8;
using dd::v8;

constexpr long double pi_ld = 3.141592653589793238462643383279502884L;

/// A discrete measure in t: points as double-double, weights as double, padded with zero weights to a
/// multiple of the vector lanes.
struct PointMeasure {
    std::vector<double> t_hi, t_lo, w;
    std::size_t points = 0;  ///< points before the padding
    void push(long double t, double weight) {
        const Dd d = dd::from_ld(t);
        t_hi.push_back(d.hi);
        t_lo.push_back(d.lo);
        w.push_back(weight);
        ++points;
    }
    void pad() {
        while (w.size() % dd::lanes) t_hi.push_back(0), t_lo.push_back(0), w.push_back(0);
    }
};

// ---------------------------------------------------------------------------------------------------
// Stage 1: the reduced measure.
//
// The measure's points are split into blocks of r, each narrow enough that every polynomial of the rules'
// top degree D = 2 n_max - 1 in t (bounded by 1 on the support) is, on the block, a function of r that the
// Chebyshev interpolant of K - 1 degree matches to 1e-15 of the block's mass by a Bernstein-ellipse bound
// (the bound is generous: measured, the moments move by about 5e-5 of it, 5e-20 here). A block
// with more than twice that many points is replaced by its K Chebyshev points with the interpolatory
// weights sum_m w_m l_i(r_m) (through the block's Chebyshev moments), which integrate every polynomial of
// degree < K in r exactly and the degree-D polynomials in t to that bound; other blocks keep their points.
// The blocks' widths in t follow the arcsine distribution (equal angles theta, t = -cos theta), where
// Chebyshev polynomials of degree D oscillate evenly. Each block is [a, a + 2 z] with z a power of two no
// larger than a / 2 around the centre a + z: the block variable s = (r - centre) / z of every point is then
// exact in double (Sterbenz), so the reduction moves no point by rounding (the last block, up to r_max, has
// any width, and its variable is rounded once; it is narrow); the Chebyshev points go back to t through
// logl, in extended precision. Moments are summed in double-double (in double over 64 points at
// a time); the reduced measure's moments of degree <= D agree with the measure's to a few 1e-17 of its mass
// (tests/mwsep/test_compressed.cpp measures it).

constexpr int reduction_blocks = 16;         ///< arcsine-uniform blocks over the support (before rounding widths)
constexpr double reduction_tolerance = 1e-15; ///< interpolation bound per unit mass, polynomials bounded by 1
constexpr int reduction_keep_factor = 2;     ///< blocks with at most this many times K points keep their points

struct Block {
    double a = 0, b = 0;        ///< the block's distances: a <= r < b (the last: r <= b)
    double centre = 0, half = 0;  ///< interpolation interval [centre - half, centre + half] in r
};

/// Blocks over [r_min, r_max].
std::vector<Block> make_blocks(double r_min, double r_max, const Frame& f) {
    std::vector<Block> blocks;
    double a = r_min;
    while (true) {
        const long double theta = std::acos(std::clamp(-f.t_of(std::log(static_cast<long double>(a))), -1.0L, 1.0L));
        const long double next = theta + pi_ld / reduction_blocks;
        const double target = next >= pi_ld ? r_max : static_cast<double>(std::exp(f.centre - f.half * std::cos(next)));
        const double width = target - a;
        double z = width > 0 ? std::ldexp(1.0, std::ilogb(width) - 1) : 0;  // power of two in (width / 4, width / 2]
        z = std::min(z, std::ldexp(1.0, std::ilogb(a) - 1));                // <= a / 2: the block's differences are exact
        if (!(target < r_max) || !(z > 0) || a + 2 * z >= r_max) {
            Block last{a, r_max, 0, 0};
            last.half = (r_max - a) / 2;
            last.centre = a + last.half;
            blocks.push_back(last);
            break;
        }
        blocks.push_back({a, a + 2 * z, a + z, z});
        a = a + 2 * z;
    }
    return blocks;
}

/// Chebyshev points K for the block [centre - half, centre + half] (in r): the smallest K for which the
/// Bernstein-ellipse bound 4 rho^-K / (rho - 1) max_{E_rho} |T_D(t(r))| is at most the tolerance, the
/// maximum taken over seven points of each ellipse (the bound is evaluated, not proven tight).
int interpolation_points(const Block& blk, const Frame& f, int degree) {
    int best = std::numeric_limits<int>::max();
    const double c = static_cast<double>(f.centre), h = static_cast<double>(f.half);
    for (const double rho : {1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 11.0, 15.0, 20.0}) {
        const double major = blk.half * (rho + 1 / rho) / 2, minor = blk.half * (rho - 1 / rho) / 2;
        if (major >= 0.9 * blk.centre) break;  // the ellipse must stay clear of r = 0, where ln r is singular
        double growth = 0;
        for (int s = 0; s <= 6; ++s) {
            const double phi = 3.14159265358979323846 * s / 6;
            const std::complex<double> r(blk.centre + major * std::cos(phi), minor * std::sin(phi));
            const std::complex<double> t = (std::log(r) - c) / h;
            const double w = std::abs(t + std::sqrt(t - 1.0) * std::sqrt(t + 1.0));  // either branch: take |w| >= 1
            growth = std::max(growth, std::fabs(std::log(w)));
        }
        const double k = (degree * growth + std::log(4 / (rho - 1) / reduction_tolerance)) / std::log(rho);
        best = std::min(best, static_cast<int>(std::ceil(k)) + 2);
    }
    return best;
}

/// The reduced measure of (r, w) for polynomials of degree up to @p degree in t.
PointMeasure reduce_measure(const std::vector<double>& r, const std::vector<double>& w, const Frame& f, int degree) {
    const std::size_t N = r.size();
    const auto [lo_it, hi_it] = std::minmax_element(r.begin(), r.end());
    const std::vector<Block> blocks = make_blocks(*lo_it, *hi_it, f);
    const std::size_t B = blocks.size();
    // Points by block (a counting sort on the boundaries).
    std::vector<double> bounds;
    for (std::size_t b = 1; b < B; ++b) bounds.push_back(blocks[b].a);
    std::vector<std::uint32_t> block_of(N);
    std::vector<std::size_t> first(B + 1, 0);
    for (std::size_t m = 0; m < N; ++m) {
        block_of[m] = static_cast<std::uint32_t>(std::upper_bound(bounds.begin(), bounds.end(), r[m]) - bounds.begin());
        ++first[block_of[m] + 1];
    }
    for (std::size_t b = 0; b < B; ++b) first[b + 1] += first[b];
    std::vector<std::uint32_t> order(N);
    {
        std::vector<std::size_t> next(first.begin(), first.end() - 1);
        for (std::size_t m = 0; m < N; ++m) order[next[block_of[m]]++] = static_cast<std::uint32_t>(m);
    }
    PointMeasure out;
    std::vector<double> s, sw;
    std::vector<v8> chunk;
    std::vector<V8> acc;
    std::map<int, std::vector<double>> cos_tables;     // per K: cos(q pi / (2K)), q < 4K
    std::map<int, std::vector<long double>> tau_tables;  // per K: the Chebyshev points cos((2i + 1) pi / (2K))
    for (std::size_t b = 0; b < B; ++b) {
        const Block& blk = blocks[b];
        const std::size_t n = first[b + 1] - first[b];
        if (n == 0) continue;
        const int K = interpolation_points(blk, f, degree);
        if (n <= static_cast<std::size_t>(reduction_keep_factor) * static_cast<std::size_t>(K) || !(blk.half > 0)) {
            for (std::size_t q = first[b]; q < first[b + 1]; ++q)
                out.push(f.t_of(std::log(static_cast<long double>(r[order[q]]))), w[order[q]]);
            continue;
        }
        // The block's Chebyshev moments M_j = sum w T_j(s), j < K, s = (r - centre) / half.
        // Four vectors (32 points) at a time: independent recurrences keep the pipelines busy.
        constexpr std::size_t group = 4 * dd::lanes;
        const std::size_t padded = (n + group - 1) / group * group;
        s.assign(padded, 0.0);
        sw.assign(padded, 0.0);
        for (std::size_t q = 0; q < n; ++q) {
            const std::uint32_t m = order[first[b] + q];
            s[q] = (r[m] - blk.centre) / blk.half;
            sw[q] = w[m];
        }
        chunk.assign(K, dd::splat(0));
        acc.assign(K, V8{dd::splat(0), dd::splat(0)});
        constexpr std::size_t chunk_points = 2 * group;  // summed in double, then added in double-double
        for (std::size_t v0 = 0; v0 < padded; v0 += chunk_points) {
            std::fill(chunk.begin(), chunk.end(), dd::splat(0));
            for (std::size_t v = v0; v < std::min(padded, v0 + chunk_points); v += group) {
                v8 S[4], W[4], S2[4], t0[4], t1[4];
                for (int u = 0; u < 4; ++u) {
                    S[u] = dd::load(&s[v + u * dd::lanes]);
                    W[u] = dd::load(&sw[v + u * dd::lanes]);
                    S2[u] = S[u] + S[u];
                    t0[u] = dd::splat(1);
                    t1[u] = S[u];
                }
                chunk[0] += ((W[0] + W[1]) + W[2]) + W[3];
                if (K > 1) chunk[1] = dd::fma(W[3], t1[3], dd::fma(W[2], t1[2], dd::fma(W[1], t1[1], dd::fma(W[0], t1[0], chunk[1]))));
                for (int j = 2; j < K; ++j) {
                    v8 t2[4];
                    for (int u = 0; u < 4; ++u) t2[u] = dd::fma(S2[u], t1[u], -t0[u]);
                    chunk[j] = dd::fma(W[3], t2[3], dd::fma(W[2], t2[2], dd::fma(W[1], t2[1], dd::fma(W[0], t2[0], chunk[j]))));
                    for (int u = 0; u < 4; ++u) t0[u] = t1[u], t1[u] = t2[u];
                }
            }
            for (int j = 0; j < K; ++j) dd::accumulate(acc[j], V8{chunk[j], dd::splat(0)});
        }
        std::vector<Dd> M(K);
        for (int j = 0; j < K; ++j) M[j] = dd::reduce(acc[j]);
        // Interpolatory weights at the K Chebyshev points s_i = cos theta_i, theta_i = (2i + 1) pi / (2K):
        // W_i = (M_0 + 2 sum_{j>=1} M_j cos(j theta_i)) / K. M_0 and M_1 in double-double (they set the
        // measure's mass and mean to rounding); the rest in double, using cos(j theta_{K-1-i}) =
        // (-1)^j cos(j theta_i) to pair the points. cos(q pi / (2K)) for q < 4K comes from the first quadrant
        // by symmetry; the points themselves, in long double, go back to t through logl.
        std::vector<double>& table = cos_tables[K];
        if (table.empty()) {
            table.resize(4 * static_cast<std::size_t>(K));
            for (int q = 0; q <= K; ++q) table[q] = std::cos(3.14159265358979323846 * q / (2.0 * K));
            for (int q = K + 1; q <= 2 * K; ++q) table[q] = -table[2 * K - q];
            for (int q = 2 * K + 1; q < 4 * K; ++q) table[q] = table[4 * K - q];
        }
        std::vector<long double>& tau = tau_tables[K];
        if (tau.empty())
            for (int i = 0; i < K; ++i) tau.push_back(std::cos(pi_ld * (2 * i + 1) / (2.0L * K)));
        std::vector<double> weight(K);
        const Dd inv_k = Dd{1, 0} / Dd{static_cast<double>(K), 0};
        const int pairs = (K + 1) / 2;  // point i and its mirror K - 1 - i
        const long long period = 4LL * K;
        for (int i0 = 0; i0 < pairs; i0 += dd::lanes) {
            dd::index8 step, q;
            for (int l = 0; l < dd::lanes; ++l) {
                step[l] = 2LL * std::min(i0 + l, pairs - 1) + 1;
                q[l] = 2 * step[l] % period;
            }
            v8 even = dd::splat(0), odd = dd::splat(0);
            for (int j = 2; j < K; ++j) {
                const v8 c = dd::gather(table.data(), q);
                if (j % 2 == 0) even = dd::fma(dd::splat(M[j].hi), c, even);
                else odd = dd::fma(dd::splat(M[j].hi), c, odd);
                q += step;
                q = q >= period ? q - period : q;
            }
            for (int l = 0; l < dd::lanes && i0 + l < pairs; ++l) {
                const int i = i0 + l, i2 = K - 1 - i;
                const Dd m1c = M[1] * dd::from_ld(tau[i]);
                const Dd lead = (M[0] + m1c + m1c) * inv_k, lead2 = (M[0] - m1c - m1c) * inv_k;
                const double scale = 2.0 / K;
                weight[i] = (lead + Dd{scale * (even[l] + odd[l]), 0}).hi;
                if (i2 != i) weight[i2] = (lead2 + Dd{scale * (even[l] - odd[l]), 0}).hi;
            }
        }
        for (int i = 0; i < K; ++i) {
            const long double ri = static_cast<long double>(blk.centre) + static_cast<long double>(blk.half) * tau[i];
            out.push(std::clamp(f.t_of(std::log(ri)), -1.0L, 1.0L), weight[i]);
        }
    }
    out.pad();
    return out;
}

// ---------------------------------------------------------------------------------------------------
// Stage 2: the recurrence of the reduced measure, double-double.

/// The orthonormal polynomials' recurrence in t: alpha[k], k < n, and beta[k] coupling k and k + 1.
struct DdRecurrence {
    std::vector<Dd> alpha, beta;
    Dd mass;
};

/// The Stieltjes procedure on @p pm for @p n coefficients: the monic polynomials' values at the points,
/// each new one from the two before, scaled by powers of two (exact) so that their norms stay near 1.
/// Returns false if a norm is not positive (fewer independent points than asked for).
bool stieltjes(const PointMeasure& pm, int n, DdRecurrence& rec) {
    const std::size_t M = pm.w.size();
    // The current and previous vectors (double-double) in one allocation.
    std::vector<double> work(4 * M, 0.0);
    double* const r_hi = work.data();
    double* const r_lo = r_hi + M;
    double* const p_hi = r_lo + M;
    double* const p_lo = p_hi + M;
    std::fill(r_hi, r_hi + M, 1.0);
    // Norm and first moment of the constant.
    V8 s0{dd::splat(0), dd::splat(0)}, q0 = s0;
    for (std::size_t i = 0; i < M; i += dd::lanes) {
        const v8 W = dd::load(&pm.w[i]);
        dd::accumulate(s0, V8{W, dd::splat(0)});
        dd::accumulate(q0, dd::mul_raw(V8{dd::load(&pm.t_hi[i]), dd::load(&pm.t_lo[i])}, W));
    }
    Dd S = dd::reduce(s0);
    if (!(S.hi > 0)) return false;
    rec.mass = S;
    rec.alpha.assign(n, Dd{});
    rec.beta.assign(n > 1 ? n - 1 : 0, Dd{});
    rec.alpha[0] = dd::reduce(q0) / S;
    Dd b_prev;  // b_k = ||pi_k||^2 / ||pi_{k-1}||^2
    for (int k = 0; k + 1 < n; ++k) {
        // vn = c R = sigma_k pi_k with sigma_k^2 ||pi_k||^2 near 1; P = sigma_{k-1} pi_{k-1}.
        const int e = std::ilogb(S.hi) / 2;
        const double c = std::ldexp(1.0, -e);
        const Dd s_scaled = dd::ldexp(S, -2 * e);
        const Dd gamma = k == 0 ? Dd{} : b_prev * c;
        const V8 A{dd::splat(rec.alpha[k].hi), dd::splat(rec.alpha[k].lo)};
        const V8 G{dd::splat(gamma.hi), dd::splat(gamma.lo)};
        const v8 C = dd::splat(c);
        V8 su{dd::splat(0), dd::splat(0)}, qu = su;
        for (std::size_t i = 0; i < M; i += dd::lanes) {
            const V8 t{dd::load(&pm.t_hi[i]), dd::load(&pm.t_lo[i])};
            const V8 vn{C * dd::load(&r_hi[i]), C * dd::load(&r_lo[i])};
            const V8 pp{dd::load(&p_hi[i]), dd::load(&p_lo[i])};
            const V8 u = dd::sub(dd::mul_raw(dd::sub_raw(t, A), vn), dd::mul_raw(G, pp));
            dd::store(&p_hi[i], vn.hi);
            dd::store(&p_lo[i], vn.lo);
            dd::store(&r_hi[i], u.hi);
            dd::store(&r_lo[i], u.lo);
            const V8 wu = dd::mul_raw(dd::sqr_raw(u), dd::load(&pm.w[i]));
            dd::accumulate(su, wu);
            dd::accumulate(qu, dd::mul_raw(t, wu));
        }
        const Dd s_new = dd::reduce(su);
        if (!(s_new.hi > 0) || !std::isfinite(s_new.hi)) return false;
        rec.alpha[k + 1] = dd::reduce(qu) / s_new;
        b_prev = s_new / s_scaled;
        rec.beta[k] = dd::sqrt(b_prev);
        S = s_new;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------
// Stage 3: the nodes and weights of each level.
//
// The n nodes are the zeros of p_n, the degree-n orthonormal polynomial (the eigenvalues of the leading
// n x n Jacobi matrix). Starting values come from the QL iteration for the smallest level (or where the
// others fail to settle) and are otherwise predicted from the level below (predict_nodes). Sturm counts of
// the recurrence (sign changes of p_0(y), ..., p_n(y): the zeros above y) at the midpoints between them cut
// (-1, 1) into brackets; one holding several zeros is split by bisection on counts, so that each holds one;
// Newton's method in double, kept inside its bracket, then converges in each, eight nodes to a vector: every
// zero is found exactly once. A last Newton step in double-double gives the nodes to about 1e-30 and the
// weights as Christoffel numbers w = mass / sum_{k<n} p_k(x)^2 (positive by construction), corrected to
// first order for that last step; where the forward recurrence for that sum is unstable (a node on an
// isolated point of the measure) one step of inverse iteration gives the weight instead.

/// Nodes per pass over the recurrence in the double-precision loops (four vectors: independent chains).
constexpr std::size_t node_group = 4 * dd::lanes;

/// Double copies of the recurrence for the Newton iterations and the Sturm counts.
struct Coefficients {
    std::vector<double> a, b, inv_b;  ///< alpha, beta (b[k] couples k and k + 1), 1 / beta
    explicit Coefficients(const DdRecurrence& rec) {
        for (const Dd& x : rec.alpha) a.push_back(x.hi);
        for (const Dd& x : rec.beta) b.push_back(x.hi), inv_b.push_back(1 / x.hi);
    }
};

/// One safeguarded Newton step for the zeros of p_n, one zero per bracket (lo, hi) of @p x (all padded to
/// the lanes): a step that leaves the bracket is replaced by its midpoint, and the bracket shrinks to the
/// side of x where the zero is (the sign of p_n there: (-1)^k with k zeros above, @p sign_hi the sign at
/// hi). @p step receives the size of each step.
void newton_step(const Coefficients& cf, int n, std::vector<double>& x, std::vector<double>& lo, std::vector<double>& hi,
                 const std::vector<double>& sign_hi, std::vector<double>& step) {
    step.assign(x.size(), 0.0);
    constexpr int U = node_group / dd::lanes;  // independent vectors per pass over the recurrence
    for (std::size_t i = 0; i < x.size(); i += node_group) {
        v8 X[U], p0[U], p1[U], d0[U], d1[U];
        for (int u = 0; u < U; ++u) {
            X[u] = dd::load(&x[i + u * dd::lanes]);
            p0[u] = dd::splat(0), p1[u] = dd::splat(1), d0[u] = dd::splat(0), d1[u] = dd::splat(0);
        }
        for (int k = 0; k + 1 < n; ++k) {
            const double ak = cf.a[k], bk = k > 0 ? cf.b[k - 1] : 0.0, ik = cf.inv_b[k];
            const v8 nb = dd::splat(-bk);
            for (int u = 0; u < U; ++u) {
                const v8 xa = X[u] - ak;
                const v8 q = dd::fma(xa, p1[u], nb * p0[u]) * ik;
                const v8 dq = dd::fma(xa, d1[u], dd::fma(nb, d0[u], p1[u])) * ik;
                p0[u] = p1[u], p1[u] = q, d0[u] = d1[u], d1[u] = dq;
            }
        }
        const double an = cf.a[n - 1], bn = n > 1 ? cf.b[n - 2] : 0.0;
        for (int u = 0; u < U; ++u) {
            const std::size_t o = i + u * dd::lanes;
            const v8 xa = X[u] - an;
            const v8 pn = dd::fma(xa, p1[u], -bn * p0[u]), dn = dd::fma(xa, d1[u], dd::fma(dd::splat(-bn), d0[u], p1[u]));
            const v8 same_as_hi = pn * dd::load(&sign_hi[o]);
            for (int l = 0; l < dd::lanes; ++l) {
                double& L = lo[o + l];
                double& H = hi[o + l];
                const double xl = X[u][l];
                if (same_as_hi[l] > 0) H = xl;
                else if (same_as_hi[l] < 0) L = xl;
                const double delta = pn[l] / dn[l];
                double next = xl - delta;
                // Outside the bracket: bisect, unless the step is rounding noise at a converged zero.
                if (!(next >= L && next <= H)) next = std::fabs(delta) <= 1e-15 ? xl : L + (H - L) / 2;
                if (pn[l] == 0) next = xl;
                x[o + l] = next;
                step[o + l] = std::fabs(next - xl);
            }
        }
    }
}

/// The number of zeros of p_n above @p y (Sturm count: sign changes of p_0(y), ..., p_n(y)), one point.
int zeros_above(const Coefficients& cf, int n, double y) {
    double p0 = 0, p1 = 1;
    bool neg = false;
    int changes = 0;
    for (int k = 0; k < n; ++k) {
        const double bk = k > 0 ? cf.b[k - 1] : 0.0;
        double q = (y - cf.a[k]) * p1 - bk * p0;
        if (k + 1 < n) q = q * cf.inv_b[k];
        const bool now = q == 0 ? !neg : q < 0;
        changes += now != neg;
        neg = now;
        p0 = p1, p1 = q;
    }
    return changes;
}

/// Splits (lo, hi), which holds @p k zeros of p_n (@p above zeros above hi), into brackets of one zero
/// each by bisection on Sturm counts; false if two zeros are closer than double resolves.
bool isolate(const Coefficients& cf, int n, double lo, double hi, int k, int above, std::vector<std::array<double, 3>>& out) {
    if (k == 0) return true;
    if (k == 1) {
        out.push_back({lo, hi, static_cast<double>(above)});
        return true;
    }
    const double mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi)) return false;
    const int c = zeros_above(cf, n, mid);
    return isolate(cf, n, lo, mid, k - (c - above), c, out) && isolate(cf, n, mid, hi, c - above, above, out);
}

/// Sturm counts: the number of zeros of p_n above each point of @p y (padded to the lanes).
std::vector<int> zeros_above(const Coefficients& cf, int n, const std::vector<double>& y) {
    std::vector<int> count(y.size(), 0);
    typedef long long mask8 __attribute__((vector_size(64)));
    constexpr int U = node_group / dd::lanes;
    for (std::size_t i = 0; i < y.size(); i += node_group) {
        v8 Y[U], p0[U], p1[U];
        mask8 neg[U], changes[U];  // lanes whose last value was negative (-1, else 0); minus the sign changes
        for (int u = 0; u < U; ++u) {
            Y[u] = dd::load(&y[i + u * dd::lanes]);
            p0[u] = dd::splat(0), p1[u] = dd::splat(1);
            neg[u] = mask8{};
            changes[u] = mask8{};
        }
        for (int k = 0; k < n; ++k) {
            const double ak = cf.a[k], bk = k > 0 ? cf.b[k - 1] : 0.0, ik = k + 1 < n ? cf.inv_b[k] : 1.0;
            for (int u = 0; u < U; ++u) {
                const v8 q = dd::fma(Y[u] - ak, p1[u], -bk * p0[u]) * ik;
                // An exact zero takes the sign opposite to the value before it (p_{k-1} and p_{k+1} then differ).
                const mask8 zero = q == 0, below = q < 0;
                const mask8 now = (zero & ~neg[u]) | (~zero & below);
                changes[u] += now ^ neg[u];  // -1 where the sign changed
                neg[u] = now;
                p0[u] = p1[u], p1[u] = q;
            }
        }
        for (int u = 0; u < U; ++u)
            for (int l = 0; l < dd::lanes; ++l) count[i + u * dd::lanes + l] = static_cast<int>(-changes[u][l]);
    }
    return count;
}

/// Eigenvalues of the leading n x n Jacobi matrix by the implicit QL iteration in double, ascending (the
/// starting values where no prediction is available). Empty if the iteration does not converge.
std::vector<double> ql_eigenvalues(const Coefficients& cf, int n) {
    std::vector<double> d(cf.a.begin(), cf.a.begin() + n), e(n, 0.0);
    for (int i = 0; i + 1 < n; ++i) e[i] = cf.b[i];
    constexpr double eps = std::numeric_limits<double>::epsilon();
    for (int l = 0; l < n; ++l) {
        for (int iteration = 0;; ++iteration) {
            int m = l;
            for (; m + 1 < n; ++m)
                if (std::fabs(e[m]) <= eps * std::max(std::fabs(d[m]) + std::fabs(d[m + 1]), 1.0)) break;
            if (m == l) break;
            if (iteration == 60) return {};
            double g = (d[l + 1] - d[l]) / (2 * e[l]);
            double r = std::sqrt(g * g + 1);
            g = d[m] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
            double s = 1, c = 1, p = 0;
            bool deflated = false;
            for (int i = m - 1; i >= l; --i) {
                const double f = s * e[i], b = c * e[i];
                r = std::sqrt(f * f + g * g);
                e[i + 1] = r;
                if (r == 0) {
                    d[i + 1] -= p;
                    e[m] = 0;
                    deflated = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
            }
            if (deflated) continue;
            d[l] -= p;
            e[l] = g;
            e[m] = 0;
        }
    }
    std::sort(d.begin(), d.end());
    return d;
}

/// Starting values for the m zeros of p_m from the n zeros of p_n (ascending, in t). In phi = arccos(-t)
/// the k-th zero of p_n satisfies n phi + psi(phi) = (k + 1/2) pi with psi a smooth function that depends
/// on the measure but hardly on n (the asymptotics of orthogonal polynomials on an interval); psi is read
/// off the known zeros, interpolated linearly (constant beyond the outermost), and the equation solved
/// for m. Newton's method takes it from there; the Sturm counts check the outcome.
std::vector<double> predict_nodes(const std::vector<double>& t, int m) {
    const int n = static_cast<int>(t.size());
    std::vector<double> phi(n), psi(n);
    for (int k = 0; k < n; ++k) {
        phi[k] = std::acos(std::clamp(-t[k], -1.0, 1.0));
        psi[k] = (k + 0.5) * 3.14159265358979323846 - n * phi[k];
    }
    std::vector<double> out(m);
    int seg = 0;  // F(phi) = m phi + psi(phi) is increasing; walk the segments once
    for (int j = 0; j < m; ++j) {
        const double target = (j + 0.5) * 3.14159265358979323846;
        double p;
        while (seg < n && m * phi[seg] + psi[seg] < target) ++seg;
        if (seg == 0) p = (target - psi[0]) / m;
        else if (seg == n) p = (target - psi[n - 1]) / m;
        else {
            const double f0 = m * phi[seg - 1] + psi[seg - 1], f1 = m * phi[seg] + psi[seg];
            p = phi[seg - 1] + (phi[seg] - phi[seg - 1]) * (target - f0) / (f1 - f0);
        }
        p = std::clamp(p, 1e-3 / m, 3.14159265358979323846 - 1e-3 / m);
        out[j] = -std::cos(p);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// The squared first components of the unit eigenvectors of the leading n x n Jacobi matrix for eight of
/// its eigenvalues @p lambda at once (lanes; double-double): one step of inverse iteration from the vector of
/// ones, with the factorisation J - lambda I = L D L^T (no pivoting; a pivot below 1e-30 in magnitude, where
/// lambda meets an eigenvalue, is replaced by 1e-30, which only scales the solution's component along that
/// eigenvector). Stable wherever the eigenvector is concentrated, unlike the forward recurrence p_k(lambda).
/// @p work is scratch space.
v8 first_components_squared(const DdRecurrence& rec, int n, V8 lambda, std::vector<V8>& work) {
    work.resize(3 * static_cast<std::size_t>(n));
    V8* const l = work.data();       // L's subdiagonal
    V8* const inv_d = l + n;         // 1 / D
    V8* const z = inv_d + n;         // L z = 1
    const V8 one{dd::splat(1), dd::splat(0)};
    const v8 tiny = dd::splat(1e-30);
    for (int i = 0; i < n; ++i) {
        V8 d = dd::sub(V8{dd::splat(rec.alpha[i].hi), dd::splat(rec.alpha[i].lo)}, lambda);
        if (i > 0) {
            const V8 b{dd::splat(rec.beta[i - 1].hi), dd::splat(rec.beta[i - 1].lo)};
            l[i] = dd::mul(b, inv_d[i - 1]);
            d = dd::sub(d, dd::mul_raw(l[i], b));
            z[i] = dd::sub(one, dd::mul_raw(l[i], z[i - 1]));
        } else {
            l[0] = V8{dd::splat(0), dd::splat(0)};
            z[0] = one;
        }
        const auto small = (d.hi < tiny) & (d.hi > -tiny);
        d.hi = small ? (d.hi < 0 ? -tiny : tiny) : d.hi;
        d.lo = small ? dd::splat(0) : d.lo;
        inv_d[i] = dd::recip(d);
    }
    V8 y = dd::mul(z[n - 1], inv_d[n - 1]);
    V8 sum = dd::sqr_raw(y);
    for (int i = n - 2; i >= 0; --i) {
        y = dd::sub(dd::mul_raw(z[i], inv_d[i]), dd::mul_raw(l[i + 1], y));
        dd::accumulate(sum, dd::sqr_raw(y));
    }
    const V8 y0sq = dd::sqr_raw(y);
    return (y0sq.hi + y0sq.lo) / (sum.hi + sum.lo);
}

/// How solve_level ended.
enum class LevelStatus {
    solved,       ///< every zero found once, refined, weighted
    too_close,    ///< two zeros closer than double resolves (a property of the recurrence, not of the start)
    not_settled,  ///< the iteration or a check failed (other starting values may do)
};

/// One level: nodes (t, double-double) and weights of the n-point rule, from starting values @p start.
/// The midpoints between the starting values (sorted) cut (-1, 1) into brackets; Sturm counts say how many
/// zeros each holds; one with several is split by bisection on counts until each holds one, and the
/// safeguarded Newton iteration (all brackets at once) converges in each. So every zero is found exactly
/// once, whatever the starting values (good ones only save work).
LevelStatus solve_level(const DdRecurrence& rec, const Coefficients& cf, int n, std::vector<double> start,
                        std::vector<Dd>& nodes, std::vector<Dd>& weights) {
    if (static_cast<int>(start.size()) != n) return LevelStatus::not_settled;
    for (double& v : start) v = std::isfinite(v) ? std::clamp(v, -1.0, 1.0) : 0.0;
    std::sort(start.begin(), start.end());
    // Bracket boundaries and their counts (zeros above). The zeros lie inside (-1, 1), the measure's support,
    // up to rounding (a node on an end point of the measure); append_level checks how far outside.
    std::vector<double> cut(n + 1);
    cut[0] = -1 - 1e-12;
    cut[n] = 1 + 1e-12;
    for (int i = 1; i < n; ++i) cut[i] = start[i - 1] + (start[i] - start[i - 1]) / 2;
    std::vector<int> above(n + 1);
    {
        std::vector<double> y((static_cast<std::size_t>(n) + 1 + node_group) / node_group * node_group, 0.0);
        for (int i = 0; i <= n; ++i) y[i] = cut[i];
        const std::vector<int> c = zeros_above(cf, n, y);
        for (int i = 0; i <= n; ++i) above[i] = c[i];
    }
    // Every zero inside: the counts at the ends say so (a zero well outside the measure's support would mean
    // the recurrence is not that of a positive measure on it).
    if (above[0] != n || above[n] != 0) return LevelStatus::not_settled;
    std::vector<std::array<double, 3>> brackets;  // lo, hi, zeros above hi
    brackets.reserve(n);
    for (int i = 0; i < n; ++i) {
        const int k = above[i] - above[i + 1];
        if (k < 0) return LevelStatus::not_settled;  // counts not monotone
        if (k == 1) brackets.push_back({cut[i], cut[i + 1], static_cast<double>(above[i + 1])});
        else if (!isolate(cf, n, cut[i], cut[i + 1], k, above[i + 1], brackets)) return LevelStatus::too_close;
    }
    if (static_cast<int>(brackets.size()) != n) return LevelStatus::not_settled;
    const std::size_t padded = (static_cast<std::size_t>(n) + node_group - 1) / node_group * node_group;
    std::vector<double> x(padded), lo(padded), hi(padded), sign_hi(padded, 1.0), step;
    for (std::size_t i = 0; i < padded; ++i) {
        const auto& br = brackets[std::min<std::size_t>(i, n - 1)];
        lo[i] = br[0];
        hi[i] = br[1];
        sign_hi[i] = static_cast<int>(br[2]) % 2 == 0 ? 1.0 : -1.0;
        const double s0 = i < static_cast<std::size_t>(n) ? start[i] : start[n - 1];
        x[i] = s0 > lo[i] && s0 < hi[i] ? s0 : lo[i] + (hi[i] - lo[i]) / 2;
    }
    // Safeguarded Newton in double on the brackets still moving (the others are set aside), until every
    // step is below 1e-15.
    std::vector<std::uint32_t> active(n);
    std::iota(active.begin(), active.end(), 0u);
    std::vector<double> ax, alo, ahi, asign;
    for (int iteration = 0; iteration < 100 && !active.empty(); ++iteration) {
        const std::size_t m = (active.size() + node_group - 1) / node_group * node_group;
        ax.resize(m), alo.resize(m), ahi.resize(m), asign.resize(m);
        for (std::size_t q = 0; q < m; ++q) {
            const std::uint32_t j = active[std::min(q, active.size() - 1)];
            ax[q] = x[j], alo[q] = lo[j], ahi[q] = hi[j], asign[q] = sign_hi[j];
        }
        newton_step(cf, n, ax, alo, ahi, asign, step);
        std::size_t kept = 0;
        for (std::size_t q = 0; q < active.size(); ++q) {
            const std::uint32_t j = active[q];
            x[j] = ax[q], lo[j] = alo[q], hi[j] = ahi[q];
            if (std::fabs(step[q]) > 1e-15) active[kept++] = j;
        }
        active.resize(kept);
    }
    if (!active.empty()) return LevelStatus::not_settled;
    for (std::size_t i = n; i < padded; ++i) x[i] = x[n - 1];
    // The last Newton step and the weights, double-double, two vectors per pass (independent chains).
    nodes.assign(n, Dd{});
    weights.assign(n, Dd{});
    std::vector<double> inv_hi, inv_lo;
    for (const Dd& b : rec.beta) {
        const Dd inv = Dd{1, 0} / b;
        inv_hi.push_back(inv.hi);
        inv_lo.push_back(inv.lo);
    }
    std::vector<int> unstable;  // nodes whose weight the forward recurrence cannot give (see below)
    constexpr int U = 2;
    typedef long long mask8 __attribute__((vector_size(64)));
    for (std::size_t i = 0; i < padded; i += U * dd::lanes) {
        V8 X[U], p0[U], p1[U], S[U];
        v8 d0[U], d1[U], D[U], peak[U];
        mask8 dipped[U];
        for (int u = 0; u < U; ++u) {
            X[u] = V8{dd::load(&x[i + u * dd::lanes]), dd::splat(0)};
            p0[u] = V8{dd::splat(0), dd::splat(0)}, p1[u] = V8{dd::splat(1), dd::splat(0)};
            S[u] = V8{dd::splat(0), dd::splat(0)};
            d0[u] = dd::splat(0), d1[u] = dd::splat(0), D[u] = dd::splat(0);
            peak[u] = dd::splat(1), dipped[u] = mask8{};
        }
        for (int k = 0; k + 1 < n; ++k) {
            const V8 A{dd::splat(rec.alpha[k].hi), dd::splat(rec.alpha[k].lo)};
            const V8 Bk{dd::splat(k > 0 ? rec.beta[k - 1].hi : 0.0), dd::splat(k > 0 ? rec.beta[k - 1].lo : 0.0)};
            const V8 Ik{dd::splat(inv_hi[k]), dd::splat(inv_lo[k])};
            const double bk = k > 0 ? cf.b[k - 1] : 0.0, ik = cf.inv_b[k];
            for (int u = 0; u < U; ++u) {
                const V8 xa = dd::sub_raw(X[u], A);
                const V8 q = dd::sub(dd::mul_raw(xa, p1[u]), dd::mul_raw(Bk, p0[u]));
                const V8 qn = dd::mul_raw(q, Ik);
                const V8 p2 = dd::fast_two_sum(qn.hi, qn.lo);
                dd::accumulate(S[u], dd::sqr_raw(p1[u]));
                const v8 d2 = dd::fma(xa.hi, d1[u], dd::fma(dd::splat(-bk), d0[u], p1[u].hi)) * ik;
                D[u] = dd::fma(p1[u].hi, d1[u], D[u]);
                // Whether two consecutive values fall 1e6 below the largest so far (a fall that matters lasts
                // many steps: looked at every eighth).
                if (k % 8 == 0) {
                    const v8 sq = p2.hi * p2.hi, before = p1[u].hi * p1[u].hi;
                    dipped[u] |= (sq + before) < 1e-12 * peak[u];
                    peak[u] = sq > peak[u] ? sq : peak[u];
                    peak[u] = before > peak[u] ? before : peak[u];
                }
                p0[u] = p1[u], p1[u] = p2, d0[u] = d1[u], d1[u] = d2;
            }
        }
        const V8 A{dd::splat(rec.alpha[n - 1].hi), dd::splat(rec.alpha[n - 1].lo)};
        const V8 Bn{dd::splat(n > 1 ? rec.beta[n - 2].hi : 0.0), dd::splat(n > 1 ? rec.beta[n - 2].lo : 0.0)};
        const double bn = n > 1 ? cf.b[n - 2] : 0.0;
        for (int u = 0; u < U; ++u) {
            dd::accumulate(S[u], dd::sqr_raw(p1[u]));
            D[u] = dd::fma(p1[u].hi, d1[u], D[u]);
            const V8 xa = dd::sub_raw(X[u], A);
            const V8 pn = dd::sub(dd::mul_raw(xa, p1[u]), dd::mul_raw(Bn, p0[u]));
            const v8 dn = dd::fma(xa.hi, d1[u], dd::fma(dd::splat(-bn), d0[u], p1[u].hi));
            const v8 delta = (pn.hi + pn.lo) / dn;
            for (int l = 0; l < dd::lanes; ++l) {
                const std::size_t j = i + u * dd::lanes + l;
                if (j >= static_cast<std::size_t>(n)) break;
                // A zero converged in double moves by rounding only.
                const double move = std::fabs(delta[l]) <= 1e-14 ? delta[l] : 0.0;
                nodes[j] = dd::two_sum(x[j], -move);
                const Dd sum = Dd{S[u].hi[l], S[u].lo[l]} + Dd{-2 * move * D[u][l], 0};
                // Where the values p_k(x) fall by more than 1e6 and rise again (a node on an isolated point of
                // the measure, whose eigenvector decays along k), the forward recurrence's rounding errors grow
                // with the fall and spoil the sum (measured: the moment tests fail for falls beyond 1e7):
                // inverse iteration gives that weight instead.
                if (dipped[u][l] != 0 || !(sum.hi > 0) || !std::isfinite(sum.hi) || move != delta[l]) {
                    unstable.push_back(static_cast<int>(j));
                    continue;
                }
                weights[j] = rec.mass / sum;
            }
        }
    }
    if (!unstable.empty()) {
        std::vector<V8> work;
        for (std::size_t g = 0; g < unstable.size(); g += dd::lanes) {
            V8 lambda;
            for (int l = 0; l < dd::lanes; ++l) {
                const Dd t = nodes[unstable[std::min(g + l, unstable.size() - 1)]];
                lambda.hi[l] = t.hi;
                lambda.lo[l] = t.lo;
            }
            const v8 share = first_components_squared(rec, n, lambda, work);
            for (int l = 0; l < dd::lanes && g + l < unstable.size(); ++l) {
                if (!(share[l] > 0) || !std::isfinite(share[l])) return LevelStatus::not_settled;
                weights[unstable[g + l]] = rec.mass * share[l];
            }
        }
    }
    for (int i = 0; i + 1 < n; ++i)
        if (!(nodes[i].hi < nodes[i + 1].hi || (nodes[i].hi == nodes[i + 1].hi && nodes[i].lo < nodes[i + 1].lo)))
            return LevelStatus::too_close;
    return LevelStatus::solved;
}

/// The level's rule: from @p predicted starting values if given, else (or if they fail to settle) from the
/// QL eigenvalues of the double Jacobi matrix. Counts in @p ql_starts the use of the latter.
LevelStatus level_rule(const DdRecurrence& rec, const Coefficients& cf, int n, const std::vector<double>& predicted,
                       std::vector<Dd>& nodes, std::vector<Dd>& weights, int& ql_starts) {
    if (!predicted.empty()) {
        const LevelStatus st = solve_level(rec, cf, n, predicted, nodes, weights);
        if (st != LevelStatus::not_settled) return st;
    }
    ++ql_starts;
    const std::vector<double> start = ql_eigenvalues(cf, n);
    if (start.empty()) return LevelStatus::not_settled;
    return solve_level(rec, cf, n, start, nodes, weights);
}

}  // namespace

Recurrence detail::fast_recurrence(const geometry::FoldedLineOfSight& los, int n) {
    if (n < 1 || static_cast<std::size_t>(n) > los.r_point.size())
        throw std::invalid_argument("fast_recurrence: " + std::to_string(n) + " coefficients asked of a measure of " +
                                    std::to_string(los.r_point.size()) + " points");
    const Frame f = detail::frame_of(los);
    const PointMeasure pm = reduce_measure(los.r_point, los.weight, f, 2 * n - 1);
    DdRecurrence rec;
    if (!stieltjes(pm, n, rec)) throw std::runtime_error("fast_recurrence: a norm of the recurrence is not positive");
    Recurrence out;
    for (const Dd& a : rec.alpha) out.alpha.push_back(dd::to_ld(a));
    for (const Dd& b : rec.beta) out.beta.push_back(dd::to_ld(b));
    out.mass = dd::to_ld(rec.mass);
    out.centre = f.centre;
    out.half_width = f.half;
    return out;
}

bool detail::build_ladder_fast(const geometry::FoldedLineOfSight& los, CompressedLadder& ladder) {
    using clock = std::chrono::steady_clock;
    const auto seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    const auto t0 = clock::now();
    const std::vector<int> sizes = detail::candidate_sizes(los.r_point.size());
    const Frame f = detail::frame_of(los);
    ladder = CompressedLadder{};
    ladder.x_min = static_cast<double>(f.lo);
    ladder.x_max = static_cast<double>(f.hi);
    ladder.construction = "fast";
    const int n_max = sizes.back();
    const PointMeasure pm = reduce_measure(los.r_point, los.weight, f, 2 * n_max - 1);
    ladder.reduced_points = static_cast<int>(pm.points);
    ladder.reduce_seconds = seconds_since(t0);
    const auto t1 = clock::now();
    DdRecurrence rec;
    // The reduced measure keeps the mass to rounding (a check of the reduction, not of the rules).
    long double mass = 0;
    for (const double w : los.weight) mass += w;
    bool ok = stieltjes(pm, n_max, rec) && std::fabs(dd::to_ld(rec.mass) / mass - 1) <= 1e-14L;
    ladder.recurrence_seconds = seconds_since(t1);
    const auto t2 = clock::now();
    if (ok) {
        const Coefficients cf(rec);
        std::vector<double> previous;  // the last level's nodes in t, double
        for (const int n : sizes) {
            std::vector<Dd> nodes, weights;
            const std::vector<double> predicted = previous.empty() ? std::vector<double>{} : predict_nodes(previous, n);
            const LevelStatus st = level_rule(rec, cf, n, predicted, nodes, weights, ladder.ql_starts);
            std::string why;
            bool appended = false;
            if (st == LevelStatus::solved) {
                GaussRuleLd rule;
                for (int i = 0; i < n; ++i) {
                    rule.x.push_back(f.centre + f.half * dd::to_ld(nodes[i]));
                    rule.weight.push_back(dd::to_ld(weights[i]));
                }
                appended = detail::append_level(ladder, n, std::move(rule), f.lo, f.hi, why);
            } else if (st == LevelStatus::too_close) {
                why = "two zeros of the " + std::to_string(n) + "-node rule are closer than double resolves";
            } else {
                why = "the " + std::to_string(n) + "-node rule's zeros were not all found";
            }
            if (!appended) {
                ladder.stopped = why;
                break;
            }
            previous.clear();
            for (const Dd& t : nodes) previous.push_back(t.hi);
        }
        ok = ladder.levels() >= 2;
    }
    ladder.rules_seconds = seconds_since(t2);
    if (ok) ladder.build_seconds = seconds_since(t0);
    else if (ladder.stopped.empty()) ladder.stopped = "the reduced measure or its recurrence failed its checks";
    return ok;
}

}  // namespace mwsep::cpu
