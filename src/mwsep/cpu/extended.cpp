// The extended-precision CPU integrator: an accuracy reference, not a fast path. Every point of every line
// of sight is evaluated in long double with the direct per-point formulas of math/point.hpp (the position,
// the flattened radius, the distance from each stream's axis by projection, exp), not with the
// line-of-sight quadratics of the fast integrator and the modern kernels: for a narrow stream those
// quadratics lose digits to cancellation near the stream (their terms are hundreds of kpc^2 where the
// distance squared is a small fraction of one), and the exact-sum integrators then disagree with each other
// at about 1e-12 of the integral. Sums are kept in long double per cell and with Neumaier summation in
// long double over cells and rows, in a fixed order (the same result for any thread count).
// Stream terms that the rigorous bound of stream_skipping.hpp puts below 2^-60 of the stream's integral
// are skipped, as in the fast integrator (the bound has a relative slack of 1e-9 on the exponent, far
// more than the quadratics' rounding).
#include <atomic>
#include <cmath>
#include <vector>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/math/point.hpp"
#include "mwsep/math/summation.hpp"
#include "mwsep/math/sightline.hpp"

namespace mwsep::cpu {
namespace {

using Wide = long double;

using WideSum = math::BasicNeumaierSum<Wide>;

math::Vec3<Wide> widen(const math::Vec3<double>& v) { return {v.x, v.y, v.z}; }

/// exp of a long-double exponent: the C library's double exp of its double part (within one ulp), times
/// 1 + the remainder (below 2^-53 of the exponent, so the first order suffices). Per term that is about
/// 1e-16 relative, independent from term to term; the long double expl would be several times slower.
Wide wide_exp(Wide x) {
    const double hi = static_cast<double>(x);
    return static_cast<Wide>(std::exp(hi)) * (1 + (x - hi));
}

/// One cell: the background over every point, each stream over the r bins its bound does not rule out.
void cell_sums(const geometry::IntegrationSetup& s, const geometry::FoldedLineOfSight& los,
               const geometry::SkyDirection& d, double ids, const std::vector<double>& thresholds, bool algebraic,
               Wide* out) {
    const auto& m = s.model;
    const Wide cbcl = Wide(d.cosb) * d.cosl, cbsl = Wide(d.cosb) * d.sinl, sinb = d.sinb;
    const Wide q_inv_sq = s.q_inv_sq, r0 = m.r0;
    const std::size_t n = los.r_point.size();
    Wide bg = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Wide rp = los.r_point[i], w = los.weight[i];
        const auto p = math::point_position(rp, cbcl, cbsl, sinb);
        const Wide rg = std::sqrt(math::flattened_radius_squared(p, q_inv_sq));
        if (s.hernquist_fast_path) {
            bg += w / math::hernquist_denominator(rg, r0);
            if (m.aux_profile) bg += math::auxiliary_background_term<Wide>(w, rp, m.aux_a, m.aux_b, m.aux_c);
        } else {
            bg += math::general_background_term<Wide>(w, rg, r0, m.alpha, m.delta);
        }
    }
    out[0] = bg;
    const double dcbcl = d.cosb * d.cosl, dcbsl = d.cosb * d.sinl;
    const int n_blocks = static_cast<int>(los.block_weight.size());
    for (std::size_t t = 0; t < s.streams.size(); ++t) {
        const auto& g = s.streams[t];
        const auto centre = widen(g.centre), axis = widen(g.axis);
        const Wide two_sigma_sq = g.two_sigma_sq;
        const auto e = math::stream_exponent_quadratic(dcbcl, dcbsl, d.sinb, g.centre, g.axis, g.inv_two_sigma_sq);
        Wide sum = 0;
        for (int k = 0; k < n_blocks; ++k) {
            if (algebraic && !math::stream_bin_needed(ids, los.block_weight[k], e, los.block_r_min[k],
                                                      los.block_r_max[k], thresholds[t]))
                continue;
            for (int j = 0; j < los.block; ++j) {
                const std::size_t i = static_cast<std::size_t>(k) * los.block + j;
                const auto p = math::point_position(Wide(los.r_point[i]), cbcl, cbsl, sinb);
                sum += Wide(los.weight[i]) * wide_exp(-math::stream_distance_squared(p, centre, axis) / two_sigma_sq);
            }
        }
        out[1 + t] = sum;
    }
}

}  // namespace

model::Integrals integrate_extended(const geometry::IntegrationSetup& s, int threads, const model::ProgressFn& progress) {
    const int n_threads = resolve_threads(threads);
    const std::size_t n_comp = 1 + s.streams.size();
    // Skipping needs the concave stream quadratics' bound; it applies to the models the fast integrator
    // skips on (Hernquist background without the auxiliary term), and nothing is skipped otherwise.
    const bool algebraic = s.hernquist_fast_path && !s.model.aux_profile;
    std::size_t total = 0;
    for (const auto& a : s.areas) total += static_cast<std::size_t>(a.n_mu());
    std::atomic<std::size_t> done{0};
    std::vector<WideSum> totals(n_comp);
    for (std::size_t area_index = 0; area_index < s.areas.size(); ++area_index) {
        const auto& a = s.areas[area_index];
        const auto los = geometry::fold_line_of_sight(a);
        const std::vector<double> thresholds =
            algebraic ? likelihood::stream_skip_thresholds(s, a, los) : std::vector<double>(s.streams.size(), 0.0);
        std::vector<Wide> rows(static_cast<std::size_t>(a.n_mu()) * n_comp);
        parallel_for(static_cast<std::size_t>(a.n_mu()), n_threads, [&](std::size_t i) {
            std::vector<WideSum> row(n_comp);
            std::vector<Wide> cell(n_comp);
            for (int j = 0; j < a.n_nu(); ++j) {
                const std::size_t p = i * a.n_nu() + j;
                const geometry::SkyDirection d{a.sinb[p], a.sinl[p], a.cosb[p], a.cosl[p]};
                cell_sums(s, los, d, a.ids[j], thresholds, algebraic, cell.data());
                for (std::size_t c = 0; c < n_comp; ++c) row[c].add(cell[c] * Wide(a.ids[j]));
            }
            for (std::size_t c = 0; c < n_comp; ++c) rows[i * n_comp + c] = row[c].value();
            if (progress) progress(++done, total);
        });
        const Wide sign = area_index == 0 ? 1 : -1;
        for (std::size_t i = 0; i < static_cast<std::size_t>(a.n_mu()); ++i)
            for (std::size_t c = 0; c < n_comp; ++c) totals[c].add(sign * rows[i * n_comp + c]);
    }
    model::Integrals result;
    result.background = static_cast<double>(totals[0].value());
    result.streams.resize(s.streams.size());
    for (std::size_t t = 0; t < s.streams.size(); ++t) result.streams[t] = static_cast<double>(totals[1 + t].value());
    return result;
}

}  // namespace mwsep::cpu
