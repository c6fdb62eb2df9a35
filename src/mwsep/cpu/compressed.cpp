// The compressed CPU integrator: per cell and component, the controller of compressed_cell.hpp on the
// area's ladder of Gauss rules, and the exact sum (as the fast integrator computes it) where the
// controller does not accept. Rows of cells are summed like integrate_fast's, so the result does not
// depend on the thread count.
#define MWSEP_COMPRESSED_SIMD 1  // the rules' sums vectorise here (compressed_cell.hpp)
#include "mwsep/cpu/compressed.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "mwsep/cpu/compressed_cell.hpp"
#include "mwsep/cpu/compressed_rule.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/math/summation.hpp"

namespace mwsep::cpu {
namespace {

/// The ladder of one area in the flat layout of LadderView, owning its arrays.
struct FlatLadder {
    std::shared_ptr<const CompressedLadder> ladder;
    std::vector<int> size, offset;
    std::vector<double> r, weight, x;
    LadderView view() const {
        LadderView v;
        v.levels = static_cast<int>(size.size());
        v.size = size.data();
        v.offset = offset.data();
        v.r = r.data();
        v.weight = weight.data();
        v.x = x.data();
        v.x_min = ladder->x_min;
        v.x_max = ladder->x_max;
        return v;
    }
};

FlatLadder flatten(std::shared_ptr<const CompressedLadder> ladder) {
    FlatLadder f;
    for (int k = 0; k < ladder->levels(); ++k) {
        f.size.push_back(ladder->size[k]);
        f.offset.push_back(static_cast<int>(f.r.size()));
        f.r.insert(f.r.end(), ladder->r[k].begin(), ladder->r[k].end());
        f.weight.insert(f.weight.end(), ladder->weight[k].begin(), ladder->weight[k].end());
        f.x.insert(f.x.end(), ladder->x[k].begin(), ladder->x[k].end());
    }
    f.ladder = std::move(ladder);
    return f;
}

/// The exact background sum over every point of the line of sight (no ids factor).
double exact_background(const geometry::FoldedLineOfSight& los, const math::Quadratic<double>& rq, double r0) {
    const double* rp = los.r_point.data();
    const double* w = los.weight.data();
    double sum = 0;
    for (std::size_t m = 0; m < los.r_point.size(); ++m) sum += w[m] / math::hernquist_denominator(std::sqrt(rq(rp[m])), r0);
    return sum;
}

/// The exact stream sum over the r bins the rigorous bound keeps (no ids factor): the bound from the expanded
/// quadratic @p bound (as every exact path skips), the terms from the vertex form @p e.
double exact_stream(const geometry::FoldedLineOfSight& los, const math::Quadratic<double>& bound,
                    const math::VertexQuadratic<double>& e, double ids, double threshold) {
    double sum = 0;
    for (std::size_t k = 0; k < los.block_weight.size(); ++k) {
        if (!math::stream_bin_needed(ids, los.block_weight[k], bound, los.block_r_min[k], los.block_r_max[k], threshold))
            continue;
        const std::size_t first = k * los.block;
        for (int m = 0; m < los.block; ++m)
            sum += los.weight[first + m] * math::stream_term_exp(e(los.r_point[first + m]));
    }
    return sum;
}

}  // namespace

model::Integrals integrate_compressed(const geometry::IntegrationSetup& s, int threads, const CompressedOptions& options,
                                      CompressedReport* report) {
    if (!(options.tolerance > 0 && options.tolerance <= 1e-3))
        throw std::invalid_argument("the compressed integrator's tolerance must be in (0, 1e-3]");
    const std::size_t n_streams = s.streams.size();
    const std::size_t n_comp = 1 + n_streams;
    CompressedReport local;
    CompressedReport& rep = report ? *report : local;
    rep = CompressedReport{};
    rep.cells.assign(n_comp, 0);
    rep.fallbacks.assign(n_comp, 0);
    rep.stated_error.assign(n_comp, 0.0);
    rep.evaluations.assign(n_comp, 0);
    rep.tolerance = options.tolerance;
    const bool algebraic = s.hernquist_fast_path && !s.model.aux_profile;
    if (!algebraic) {
        // No line-of-sight quadratics for this model: the exact sum everywhere, said as such.
        rep.all_exact = true;
        for (const auto& a : s.areas)
            for (std::size_t c = 0; c < n_comp; ++c) rep.cells[c] += static_cast<long long>(a.cells()), rep.fallbacks[c] += static_cast<long long>(a.cells());
        return integrate_fast(s, threads);
    }
    const int n_threads = resolve_threads(threads);
    std::vector<math::NeumaierSum> totals(n_comp);
    std::vector<double> estimate_total(n_comp, 0.0);
    for (std::size_t area_index = 0; area_index < s.areas.size(); ++area_index) {
        const auto& a = s.areas[area_index];
        const auto los = geometry::fold_line_of_sight(a);
        const auto t0 = std::chrono::steady_clock::now();
        const FlatLadder flat = flatten(cached_ladder(los));
        rep.rule_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (area_index == 0) rep.ladder = flat.size;
        const LadderView view = flat.view();
        const std::vector<double> thresholds = likelihood::stream_skip_thresholds(s, a, los, static_cast<unsigned>(n_threads));
        const std::size_t n_mu = static_cast<std::size_t>(a.n_mu());
        // Per row and component: the sum, the sum of accepted estimates, fallbacks and evaluations.
        std::vector<double> row_sum(n_mu * n_comp), row_estimate(n_mu * n_comp);
        std::vector<long long> row_fallbacks(n_mu * n_comp), row_evaluations(n_mu * n_comp);
        parallel_for(n_mu, n_threads, [&](std::size_t i) {
            std::vector<math::NeumaierSum> row(n_comp);
            for (int j = 0; j < a.n_nu(); ++j) {
                const std::size_t p = i * a.n_nu() + j;
                const double ids = a.ids[j];
                const double cbcl = a.cosb[p] * a.cosl[p], cbsl = a.cosb[p] * a.sinl[p];
                const auto rq = math::flattened_radius_quadratic(cbcl, cbsl, a.sinb[p], s.q_inv_sq);
                const double r0 = s.model.r0;
                ComponentOutcome bg = control(view, background_first_level(view, rq), options.tolerance, 0.0,
                                              [&](int k) { return background_rule_sum(view, k, rq, r0); });
                double value = bg.value;
                if (bg.level < 0) value = exact_background(los, rq, r0), ++row_fallbacks[i * n_comp];
                row[0].add(value * ids);
                row_estimate[i * n_comp] += bg.estimate * ids;
                row_evaluations[i * n_comp] += bg.evaluations;
                for (std::size_t t = 0; t < n_streams; ++t) {
                    const auto& g = s.streams[t];
                    const auto e = math::stream_exponent_vertex(cbcl, cbsl, a.sinb[p], g.centre, g.axis, g.inv_two_sigma_sq);
                    // The floor in units of the sum without ids: the bins' thresholds of the whole sight line.
                    const double floor = thresholds[t] * a.r.n_r / ids;
                    ComponentOutcome st = control(view, stream_first_level(view, e), options.tolerance, floor,
                                                  [&](int k) { return stream_rule_sum(view, k, e); });
                    double sv = st.value;
                    if (st.level < 0) {
                        const auto bound = math::stream_exponent_quadratic(cbcl, cbsl, a.sinb[p], g.centre, g.axis,
                                                                           g.inv_two_sigma_sq);
                        sv = exact_stream(los, bound, e, ids, thresholds[t]);
                        ++row_fallbacks[i * n_comp + 1 + t];
                    }
                    row[1 + t].add(sv * ids);
                    row_estimate[i * n_comp + 1 + t] += st.estimate * ids;
                    row_evaluations[i * n_comp + 1 + t] += st.evaluations;
                }
            }
            for (std::size_t c = 0; c < n_comp; ++c) row_sum[i * n_comp + c] = row[c].value();
        });
        const double sign = area_index == 0 ? 1.0 : -1.0;
        for (std::size_t i = 0; i < n_mu; ++i)
            for (std::size_t c = 0; c < n_comp; ++c) {
                totals[c].add(sign * row_sum[i * n_comp + c]);
                estimate_total[c] += row_estimate[i * n_comp + c];
                rep.fallbacks[c] += row_fallbacks[i * n_comp + c];
                rep.evaluations[c] += row_evaluations[i * n_comp + c];
                rep.cells[c] += a.n_nu();
            }
    }
    model::Integrals result;
    result.background = totals[0].value();
    for (std::size_t t = 0; t < n_streams; ++t) result.streams.push_back(totals[1 + t].value());
    for (std::size_t c = 0; c < n_comp; ++c) {
        const double integral = c == 0 ? result.background : result.streams[c - 1];
        rep.stated_error[c] = estimate_total[c] / std::fabs(integral);
    }
    return result;
}

std::string describe(const CompressedReport& r) {
    std::string out = "compressed quadrature, tolerance " + [&] {
        char b[32];
        std::snprintf(b, sizeof b, "%.3g", r.tolerance);
        return std::string(b);
    }() + ":";
    for (std::size_t c = 0; c < r.cells.size(); ++c) {
        char b[160];
        std::snprintf(b, sizeof b, " %s %lld/%lld cells exact, stated error %.2g;",
                      c == 0 ? "background" : ("stream " + std::to_string(c)).c_str(), r.fallbacks[c], r.cells[c],
                      r.stated_error[c]);
        out += b;
    }
    return out;
}

}  // namespace mwsep::cpu
