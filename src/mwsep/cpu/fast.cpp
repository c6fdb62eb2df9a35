// The fast CPU integrator. These ideas make it fast; none changes the mathematics beyond rounding:
//  1. For a fixed area the weight of a point (qw x efficiency x irv) does not depend on the sky cell, so
//     it is folded into one table once; a cell's integral is then ids_j times one flat reduction over all
//     n_r x n_conv points of its line of sight, which the compiler vectorises.
//  2. The exponentials use exp_nonpositive(), which vectorises (the C library's exp does not).
//  3. Along a line of sight the flattened radius and each stream's exponent are quadratics in r
//     (math/sightline.hpp), and stream terms that a rigorous bound shows to be below 2^-60 of the
//     stream's integral are skipped (cpu/stream_skipping.hpp).
// Cells are summed per mu row and rows in index order with Neumaier summation, so the result is the same
// for every thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "mwsep/likelihood/densities.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/math/summation.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/math/exp_nonpositive.hpp"
#include "mwsep/math/sightline.hpp"

namespace mwsep::cpu {
namespace {

using geometry::FoldedLineOfSight;
using math::Quadratic;

/// The Hernquist background over one whole line of sight: by the line-of-sight algebra two fused
/// multiply-adds give the flattened radius squared, and the loop vectorises.
double background_sum(const FoldedLineOfSight& los, const Quadratic<double>& radius, double r0) {
    const double* rp = los.r_point.data();
    const double* w = los.weight.data();
    const std::size_t n = los.r_point.size();
    const Quadratic<double> rq = radius;
    double bg = 0;
#pragma omp simd reduction(+ : bg)
    for (std::size_t m = 0; m < n; ++m) {
        const double rg = std::sqrt(rq(rp[m]));
        const double rs = rg + r0;
        bg += w[m] / (rg * rs * rs * rs);
    }
    return bg;
}

/// Any other model (general power law, auxiliary term): the shared per-point formulas in a scalar loop
/// over the same folded table, every stream evaluated.
void line_sums_generic(const geometry::IntegrationSetup& s, const FoldedLineOfSight& los,
                       const geometry::SkyDirection& d, double* out) {
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

/// The stream sum of one r bin: a short vectorised loop over its points.
double stream_block_sum(const double* rp, const double* w, int n, const Quadratic<double>& e) {
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int m = 0; m < n; ++m) sum += w[m] * math::stream_term_exp(e(rp[m]));
    return sum;
}

/// One cell by the line-of-sight algebra: the background over every point in one vectorised loop, then
/// each stream over the r bins whose bound reaches its threshold (the others are provably negligible).
void cell_sums_algebraic(const geometry::IntegrationSetup& s, const FoldedLineOfSight& los,
                         const geometry::SkyDirection& d, double ids, const std::vector<double>& thresholds,
                         double* out) {
    const double cbcl = d.cosb * d.cosl, cbsl = d.cosb * d.sinl;
    const auto radius = math::flattened_radius_quadratic(cbcl, cbsl, d.sinb, s.q_inv_sq);
    out[0] = background_sum(los, radius, s.model.r0);
    const int n_blocks = static_cast<int>(los.block_weight.size());
    for (std::size_t t = 0; t < s.streams.size(); ++t) {
        const auto& g = s.streams[t];
        const auto e = math::stream_exponent_quadratic(cbcl, cbsl, d.sinb, g.centre, g.axis, g.inv_two_sigma_sq);
        double sum = 0;
        for (int k = 0; k < n_blocks; ++k) {
            if (!math::stream_bin_needed(ids, los.block_weight[k], e, los.block_r_min[k], los.block_r_max[k],
                                         thresholds[t]))
                continue;
            const std::size_t first = static_cast<std::size_t>(k) * los.block;
            sum += stream_block_sum(&los.r_point[first], &los.weight[first], los.block, e);
        }
        out[1 + t] = sum;
    }
}

}  // namespace

int resolve_threads(int threads) {
    if (threads > 0) return threads;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
}

model::Integrals integrate_fast(const geometry::IntegrationSetup& s, int threads, const model::ProgressFn& progress,
                               bool skip_negligible_streams, resume::Checkpoint* checkpoint) {
    const int n_threads = resolve_threads(threads);
    const std::size_t n_comp = 1 + s.streams.size();
    const bool algebraic = s.hernquist_fast_path && !s.model.aux_profile;
    // The work items are the mu rows of every area, numbered area after area; each keeps its row sums.
    std::vector<std::size_t> first_row;
    std::size_t total = 0;
    for (const auto& a : s.areas) {
        first_row.push_back(total);
        total += static_cast<std::size_t>(a.n_mu());
    }
    resume::Progress rows = resume::Progress::empty(total, n_comp);
    if (checkpoint) checkpoint->load(rows);
    std::atomic<std::size_t> done{rows.done_count()};

    model::Integrals result;
    result.streams.assign(s.streams.size(), 0.0);
    std::vector<math::NeumaierSum> totals(n_comp);
    for (std::size_t area_index = 0; area_index < s.areas.size(); ++area_index) {
        const auto& a = s.areas[area_index];
        const auto los = geometry::fold_line_of_sight(a);
        const std::vector<double> thresholds = algebraic && skip_negligible_streams
                                                   ? likelihood::stream_skip_thresholds(s, a, los)
                                                   : std::vector<double>(s.streams.size(), 0.0);
        parallel_for(static_cast<std::size_t>(a.n_mu()), n_threads, [&](std::size_t i) {
            const std::size_t item = first_row[area_index] + i;
            // A row done before a resume is kept; after a stop request no new row starts (it is left to the
            // resumed run), so the state is saved within one row's time.
            if (resume::is_done(rows, item) || (checkpoint && resume::stop_requested())) return;
            std::vector<math::NeumaierSum> row(n_comp);
            std::vector<double> cell(n_comp);
            for (int j = 0; j < a.n_nu(); ++j) {
                const std::size_t p = i * a.n_nu() + j;
                const geometry::SkyDirection d{a.sinb[p], a.sinl[p], a.cosb[p], a.cosl[p]};
                if (algebraic) cell_sums_algebraic(s, los, d, a.ids[j], thresholds, cell.data());
                else line_sums_generic(s, los, d, cell.data());
                for (std::size_t c = 0; c < n_comp; ++c) row[c].add(cell[c] * a.ids[j]);
            }
            for (std::size_t c = 0; c < n_comp; ++c) rows.values[item * n_comp + c] = row[c].value();
            resume::mark_done(rows, item);
            if (progress) progress(++done, total);
            if (checkpoint) checkpoint->save_if_due(rows);
        });
        if (checkpoint) checkpoint->stop_if_requested(rows);
        // Rows are added in index order whatever thread or run computed them: the same sum every time.
        const double sign = area_index == 0 ? 1.0 : -1.0;
        for (std::size_t i = 0; i < static_cast<std::size_t>(a.n_mu()); ++i)
            for (std::size_t c = 0; c < n_comp; ++c)
                totals[c].add(sign * rows.values[(first_row[area_index] + i) * n_comp + c]);
    }
    result.background = totals[0].value();
    for (std::size_t t = 0; t < s.streams.size(); ++t) result.streams[t] = totals[1 + t].value();
    return result;
}

model::Likelihood likelihood_fast(const geometry::IntegrationSetup& s, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, int threads) {
    likelihood::check_integrals(integrals);
    const auto w = likelihood::mixture_weights(s.model);
    const std::size_t n_streams = s.streams.size();
    const std::size_t n_comp = 1 + n_streams;
    const std::size_t n = stars.size();
    std::vector<double> dens(n * n_comp);
    constexpr std::size_t chunk = 256;
    parallel_for((n + chunk - 1) / chunk, resolve_threads(threads), [&](std::size_t block) {
        const std::size_t end = std::min(n, (block + 1) * chunk);
        for (std::size_t i = block * chunk; i < end; ++i)
            likelihood::star_densities(s, stars.l[i], stars.b[i], stars.r[i], &dens[i * n_comp]);
    });
    likelihood::LikelihoodAssembly<math::NeumaierSum> sums(w, integrals);
    for (std::size_t i = 0; i < n; ++i) {
        const double* d = &dens[i * n_comp];
        bool zero = false;
        const double log_probability = likelihood::star_log_probability(w, integrals, d, zero);
        sums.add_star(log_probability, zero, d);
    }
    sums.check_finite();
    return sums.result();
}

}  // namespace mwsep::cpu
