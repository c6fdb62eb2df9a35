// The fast CPU integrator. Two ideas make it fast, neither changes the mathematics:
//  1. For a fixed area the weight of a point (qw x efficiency x irv) does not depend on the sky cell, so
//     it is folded into one table once; a cell's integral is then ids_j times one flat reduction over all
//     n_r x n_conv points of its line of sight, which the compiler vectorises.
//  2. The exponentials use exp_nonpositive(), which vectorises (the C library's exp does not).
// Cells are summed per mu row and rows in index order with Neumaier summation, so the result is the same
// for every thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "cpu/densities.hpp"
#include "cpu/integrators.hpp"
#include "cpu/likelihood.hpp"
#include "cpu/summation.hpp"
#include "cpu/thread_pool.hpp"
#include "math/exp_nonpositive.hpp"

namespace mwsep::cpu {
namespace {

/// Per-area point tables: distance and folded weight of every point of a line of sight.
struct LineOfSight {
    std::vector<double> r_point;
    std::vector<double> weight;  ///< qw_r3_n x efficiency x irv
};

LineOfSight fold_weights(const geometry::AreaTables& a) {
    LineOfSight los;
    const std::size_t n = a.r.r_point.size();
    los.r_point = a.r.r_point;
    los.weight.resize(n);
    for (int k = 0; k < a.r.n_r; ++k)
        for (int c = 0; c < a.r.n_conv; ++c) {
            const std::size_t m = static_cast<std::size_t>(k) * a.r.n_conv + c;
            los.weight[m] = a.r.qw_r3_n[m] * a.r.efficiency[k] * a.r.irv[k];
        }
    return los;
}

/// One line of sight, Hernquist background, S streams known at compile time: fully vectorisable.
template <int S>
void line_sums_fixed(const geometry::IntegrationSetup& s, const LineOfSight& los, const geometry::SkyDirection& d,
                     double* out) {
    const double cbcl = d.cosb * d.cosl, cbsl = d.cosb * d.sinl, sb = d.sinb;
    const double r0 = s.model.r0, qinv = s.q_inv_sq, sun = constants::sun_r;
    double cx[S + 1], cy[S + 1], cz[S + 1], ax[S + 1], ay[S + 1], az[S + 1], inv[S + 1];
    for (int t = 0; t < S; ++t) {
        const auto& g = s.streams[t];
        cx[t] = g.centre.x, cy[t] = g.centre.y, cz[t] = g.centre.z;
        ax[t] = g.axis.x, ay[t] = g.axis.y, az[t] = g.axis.z, inv[t] = g.inv_two_sigma_sq;
    }
    const double* rp = los.r_point.data();
    const double* w = los.weight.data();
    const std::size_t n = los.r_point.size();
    double bg = 0, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : bg, s0, s1, s2, s3)
    for (std::size_t m = 0; m < n; ++m) {
        const double x = rp[m] * cbcl - sun, y = rp[m] * cbsl, z = rp[m] * sb;
        const double rg = std::sqrt(x * x + y * y + z * z * qinv);
        const double rs = rg + r0;
        bg += w[m] / (rg * rs * rs * rs);
        // One stream's term; with S and t compile-time constants every index below is fixed, which
        // keeps the loop vectorisable (a runtime-indexed array of sums would not be).
        const auto term = [&](int t) {
            double dx = x - cx[t], dy = y - cy[t], dz = z - cz[t];
            const double proj = ax[t] * dx + ay[t] * dy + az[t] * dz;
            dx -= proj * ax[t], dy -= proj * ay[t], dz -= proj * az[t];
            return w[m] * math::exp_nonpositive(-(dx * dx + dy * dy + dz * dz) * inv[t]);
        };
        if constexpr (S > 0) s0 += term(0);
        if constexpr (S > 1) s1 += term(1);
        if constexpr (S > 2) s2 += term(2);
        if constexpr (S > 3) s3 += term(3);
    }
    out[0] = bg;
    const double st[4] = {s0, s1, s2, s3};
    for (int t = 0; t < S; ++t) out[1 + t] = st[t];
}

/// Any other model (general power law, auxiliary term, more than 4 streams): the shared per-point
/// formulas in a scalar loop over the same folded table.
void line_sums_generic(const geometry::IntegrationSetup& s, const LineOfSight& los, const geometry::SkyDirection& d,
                       double* out) {
    const auto& m = s.model;
    const std::size_t n_streams = s.streams.size();
    const double cbcl = d.cosb * d.cosl, cbsl = d.cosb * d.sinl;
    for (std::size_t c = 0; c <= n_streams; ++c) out[c] = 0;
    for (std::size_t i = 0; i < los.r_point.size(); ++i) {
        const double rp = los.r_point[i], w = los.weight[i];
        const auto p = math::point_position(rp, cbcl, cbsl, d.sinb);
        const double rg = std::sqrt(math::flattened_radius_squared(p, s.q_inv_sq));
        if (s.hernquist_fast_path) {
            out[0] += w / math::hernquist_denominator(rg, m.r0);
            if (m.aux_profile) out[0] += math::auxiliary_background_term(w, rp, m.aux_a, m.aux_b, m.aux_c);
        } else {
            out[0] += math::general_background_term(w, rg, m.r0, m.alpha, m.delta);
        }
        for (std::size_t t = 0; t < n_streams; ++t) {
            const auto& g = s.streams[t];
            out[1 + t] += w * math::exp_nonpositive(-math::stream_distance_squared(p, g.centre, g.axis) * g.inv_two_sigma_sq);
        }
    }
}

using LineSums = void (*)(const geometry::IntegrationSetup&, const LineOfSight&, const geometry::SkyDirection&,
                          double*);

LineSums choose_line_sums(const geometry::IntegrationSetup& s) {
    if (!s.hernquist_fast_path || s.model.aux_profile) return line_sums_generic;
    switch (s.streams.size()) {
        case 0: return line_sums_fixed<0>;
        case 1: return line_sums_fixed<1>;
        case 2: return line_sums_fixed<2>;
        case 3: return line_sums_fixed<3>;
        case 4: return line_sums_fixed<4>;
        default: return line_sums_generic;
    }
}

}  // namespace

int resolve_threads(int threads) {
    if (threads > 0) return threads;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
}

model::Integrals integrate_fast(const geometry::IntegrationSetup& s, int threads, const model::ProgressFn& progress) {
    const int n_threads = resolve_threads(threads);
    const std::size_t n_comp = 1 + s.streams.size();
    const LineSums line_sums = choose_line_sums(s);
    std::size_t total = 0;
    for (const auto& a : s.areas) total += static_cast<std::size_t>(a.n_mu());
    std::atomic<std::size_t> done{0};

    model::Integrals result;
    result.streams.assign(s.streams.size(), 0.0);
    std::vector<NeumaierSum> totals(n_comp);
    for (std::size_t area_index = 0; area_index < s.areas.size(); ++area_index) {
        const auto& a = s.areas[area_index];
        const LineOfSight los = fold_weights(a);
        std::vector<double> rows(static_cast<std::size_t>(a.n_mu()) * n_comp);
        parallel_for(static_cast<std::size_t>(a.n_mu()), n_threads, [&](std::size_t i) {
            std::vector<NeumaierSum> row(n_comp);
            std::vector<double> cell(n_comp);
            for (int j = 0; j < a.n_nu(); ++j) {
                const std::size_t p = i * a.n_nu() + j;
                line_sums(s, los, {a.sinb[p], a.sinl[p], a.cosb[p], a.cosl[p]}, cell.data());
                for (std::size_t c = 0; c < n_comp; ++c) row[c].add(cell[c] * a.ids[j]);
            }
            for (std::size_t c = 0; c < n_comp; ++c) rows[i * n_comp + c] = row[c].value();
            if (progress) progress(++done, total);
        });
        const double sign = area_index == 0 ? 1.0 : -1.0;
        for (std::size_t i = 0; i < static_cast<std::size_t>(a.n_mu()); ++i)
            for (std::size_t c = 0; c < n_comp; ++c) totals[c].add(sign * rows[i * n_comp + c]);
    }
    result.background = totals[0].value();
    for (std::size_t t = 0; t < s.streams.size(); ++t) result.streams[t] = totals[1 + t].value();
    return result;
}

model::Likelihood likelihood_fast(const geometry::IntegrationSetup& s, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, int threads) {
    check_integrals(integrals);
    const auto w = mixture_weights(s.model);
    const std::size_t n_streams = s.streams.size();
    const std::size_t n_comp = 1 + n_streams;
    const std::size_t n = stars.size();
    std::vector<double> dens(n * n_comp);
    constexpr std::size_t chunk = 256;
    parallel_for((n + chunk - 1) / chunk, resolve_threads(threads), [&](std::size_t block) {
        const std::size_t end = std::min(n, (block + 1) * chunk);
        for (std::size_t i = block * chunk; i < end; ++i)
            star_densities(s, stars.l[i], stars.b[i], stars.r[i], &dens[i * n_comp]);
    });
    model::Likelihood out;
    NeumaierSum sum, bg_sum;
    std::vector<NeumaierSum> stream_sums(n_streams);
    for (std::size_t i = 0; i < n; ++i) {
        const double* d = &dens[i * n_comp];
        bool zero = false;
        sum.add(star_log_probability(w, integrals, d, zero));
        out.zero_probability_stars += zero;
        bg_sum.add(diagnostic_term(d[0], integrals.background, w.background, w.sum));
        for (std::size_t t = 0; t < n_streams; ++t)
            stream_sums[t].add(diagnostic_term(d[1 + t], integrals.streams[t], w.streams[t], w.sum));
    }
    const double n_stars = static_cast<double>(n);
    out.likelihood = sum.value() / n_stars;
    out.background_likelihood = bg_sum.value() / n_stars;
    for (std::size_t t = 0; t < n_streams; ++t) out.stream_only.push_back(stream_sums[t].value() / n_stars);
    return out;
}

}  // namespace mwsep::cpu
