#include "mwsep/likelihood/stream_skipping.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "harness/threads.hpp"
#include "mwsep/cpu/worker_pool.hpp"
#include "mwsep/math/sightline.hpp"

namespace mwsep::likelihood {

namespace {

/// The first cell of [first, last) with the largest line-of-sight bound of stream @p g, and that bound
/// (-1 and @p first when no bound exceeds -1). A cell's bound is ids * weight_sum * stream_term_bound(), whose
/// exponential grows with the exponent x of stream_term_bound_exponent(): a cell whose x + log(2 ids
/// weight_sum) lies below log(the best bound so far) by more than `margin` cannot exceed that bound (the
/// logarithm's and the exponential's rounding are below 1e-15 relative), so its exponential is not taken. Every
/// other cell's bound is computed as before, so the cell found and its bound are the same bits as a search that
/// computes every bound; a NaN or infinite value never passes the test and is computed. @p log_scale: log(2 ids
/// weight_sum) per nu row (log_scales()).
std::pair<double, std::size_t> largest_bound(const geometry::StreamGeometry& g, const geometry::AreaTables& a,
                                             const geometry::FoldedLineOfSight& los, const std::vector<double>& log_scale,
                                             std::size_t first, std::size_t last) {
    constexpr double margin = 1e-6;
    const std::size_t n_nu = a.n_nu();
    double best_bound = -1, cut = -std::numeric_limits<double>::infinity();
    std::size_t best_cell = first;
    for (std::size_t p = first; p < last; ++p) {
        const double cbcl = a.cosb[p] * a.cosl[p], cbsl = a.cosb[p] * a.sinl[p];
        const auto e = math::stream_exponent_quadratic(cbcl, cbsl, a.sinb[p], g.centre, g.axis, g.inv_two_sigma_sq);
        const double x = math::stream_term_bound_exponent(e, los.r_min, los.r_max);
        if (x < 0 && x + log_scale[p % n_nu] < cut) continue;  // surely below the best bound
        const double bound = a.ids[p % n_nu] * los.weight_sum * math::stream_term_bound_of_exponent(x);
        if (bound > best_bound) {
            best_bound = bound, best_cell = p;
            cut = std::log(best_bound) - margin;
        }
    }
    return {best_bound, best_cell};
}

/// log(2 ids weight_sum) of each nu row of @p a: what largest_bound() adds to a cell's exponent.
std::vector<double> log_scales(const geometry::AreaTables& a, const geometry::FoldedLineOfSight& los) {
    std::vector<double> out(static_cast<std::size_t>(a.n_nu()));
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = std::log(2.0 * a.ids[j] * los.weight_sum);
    return out;
}

/// Cells (or terms) per part below which more parts do not pay for handing them out.
constexpr std::size_t min_items_per_part = 4096;

/// Parts of a loop over @p items for @p threads threads: none smaller than min_items_per_part, and with more
/// than one thread up to four a thread, taken as they come, so that a thread that wakes late or runs slowly
/// leaves its share to the others instead of holding up the loop with a whole one.
std::size_t parts_for(std::size_t items, unsigned threads) {
    const std::size_t most = threads > 1 ? 4 * static_cast<std::size_t>(threads) : 1;
    return std::clamp<std::size_t>(items / min_items_per_part, 1, most);
}

/// Runs body(k) for k in [0, n) and returns when every call has: on at most @p threads threads started for
/// this one loop (harness::parallel_for, which goes on with fewer where the system refuses one).
void on_new_threads(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& body) {
    harness::parallel_for(n, static_cast<int>(std::min<std::size_t>(n, std::max(1u, threads))), body, "mwsep");
}

/// The thresholds, each loop split into parts (parts_for) and run by @p run on @p threads threads.
std::vector<double> thresholds_on(const std::vector<geometry::StreamGeometry>& streams, const geometry::AreaTables& a,
                                  const geometry::FoldedLineOfSight& los, unsigned threads,
                                  const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>& run) {
    const std::size_t n_streams = streams.size();
    std::vector<double> thresholds(n_streams, 0.0);
    const std::size_t cells = a.cells();
    const std::size_t parts = parts_for(cells, threads);
    // Part k covers cells [k cells / parts, (k + 1) cells / parts) of every stream.
    std::vector<std::pair<double, std::size_t>> found(n_streams * parts);
    const std::vector<double> log_scale = log_scales(a, los);
    const auto search = [&](std::size_t k) {
        const std::size_t first = k * cells / parts, last = (k + 1) * cells / parts;
        for (std::size_t t = 0; t < n_streams; ++t)
            found[t * parts + k] = largest_bound(streams[t], a, los, log_scale, first, last);
    };
    run(parts, search);
    // The exact stream sum of each stream's best cell, with the library exp: a lower bound of the integral.
    // Its terms are computed on the threads (every stream's points split into ranges), then added in point
    // order on this one, so the sum is the same for any number of threads.
    const std::size_t points = los.r_point.size();
    std::vector<double> terms(n_streams * points);
    std::vector<std::size_t> best_cell(n_streams);
    for (std::size_t t = 0; t < n_streams; ++t) {
        // The parts in cell order, a later one only where strictly larger: the first largest bound of all.
        auto best = found[t * parts];
        for (std::size_t k = 1; k < parts; ++k)
            if (found[t * parts + k].first > best.first) best = found[t * parts + k];
        best_cell[t] = best.second;
    }
    const std::size_t term_parts = parts_for(n_streams * points, threads);
    const auto fill = [&](std::size_t k) {
        const std::size_t total = n_streams * points;
        for (std::size_t i = k * total / term_parts; i < (k + 1) * total / term_parts; ++i) {
            const std::size_t t = i / points, m = i % points, p = best_cell[t];
            const auto& g = streams[t];
            const auto pos = math::point_position(los.r_point[m], a.cosb[p] * a.cosl[p], a.cosb[p] * a.sinl[p], a.sinb[p]);
            terms[i] = los.weight[m] * std::exp(-math::stream_distance_squared(pos, g.centre, g.axis) * g.inv_two_sigma_sq);
        }
    };
    run(term_parts, fill);
    for (std::size_t t = 0; t < n_streams; ++t) {
        double exact = 0;
        for (std::size_t m = 0; m < points; ++m) exact += terms[t * points + m];
        exact *= a.ids[best_cell[t] % a.n_nu()];
        thresholds[t] = std::ldexp(exact, -60) / (static_cast<double>(cells) * static_cast<double>(a.r.n_r));
    }
    return thresholds;
}

}  // namespace

std::vector<double> stream_skip_thresholds(const geometry::IntegrationSetup& s, const geometry::AreaTables& a,
                                           const geometry::FoldedLineOfSight& los, unsigned threads) {
    return stream_skip_thresholds(s.streams, a, los, threads);
}

std::vector<double> stream_skip_thresholds(const std::vector<geometry::StreamGeometry>& streams,
                                           const geometry::AreaTables& a, const geometry::FoldedLineOfSight& los,
                                           unsigned threads) {
    return thresholds_on(streams, a, los, threads, [threads](std::size_t n, const std::function<void(std::size_t)>& body) {
        on_new_threads(n, threads, body);
    });
}

std::vector<double> stream_skip_thresholds(const std::vector<geometry::StreamGeometry>& streams,
                                           const geometry::AreaTables& a, const geometry::FoldedLineOfSight& los,
                                           cpu::WorkerPool& pool) {
    return thresholds_on(streams, a, los, pool.threads(),
                         [&pool](std::size_t n, const std::function<void(std::size_t)>& body) { pool.run(n, body); });
}

std::vector<std::size_t> active_stream_bins(const geometry::IntegrationSetup& s, const geometry::AreaTables& a,
                                            const geometry::FoldedLineOfSight& los,
                                            const std::vector<double>& thresholds) {
    std::vector<std::size_t> active(s.streams.size(), 0);
    for (std::size_t p = 0; p < a.cells(); ++p) {
        const double cbcl = a.cosb[p] * a.cosl[p], cbsl = a.cosb[p] * a.sinl[p];
        const double ids = a.ids[p % a.n_nu()];
        for (std::size_t t = 0; t < s.streams.size(); ++t) {
            const auto& g = s.streams[t];
            const auto e = math::stream_exponent_quadratic(cbcl, cbsl, a.sinb[p], g.centre, g.axis, g.inv_two_sigma_sq);
            for (std::size_t k = 0; k < los.block_weight.size(); ++k)
                active[t] += math::stream_bin_needed(ids, los.block_weight[k], e, los.block_r_min[k], los.block_r_max[k],
                                                     thresholds[t]);
        }
    }
    return active;
}

}  // namespace mwsep::likelihood
