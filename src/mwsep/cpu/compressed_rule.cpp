// The compressed quadrature's Gauss rules. Two constructions of the same rules:
//  - the fast one (compressed_rule_fast.cpp; milliseconds on one core for the large grids): the measure
//    reduced block by block to a few thousand points with the same polynomial moments to rounding, the
//    Stieltjes recurrence on those in double-double, each level's nodes by Newton's method on the three-term
//    recurrence bracketed by Sturm counts, with a last Newton step and the weights (Christoffel numbers) in
//    double-double;
//  - build_ladder_reference, here: the long-double Stieltjes/Lanczos recurrence on every point of the measure
//    and the Golub-Welsch eigenproblem by implicit QL (seconds on the large grids): the fallback if the fast
//    construction fails its own checks or cannot run on the processor, and a second construction for tests.
// Either way a level is kept only if its nodes, stored in double as the integrators use them, are strictly
// increasing, its weights positive and its nodes inside the measure (append_level).
#include "mwsep/cpu/compressed_rule.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "mwsep/cpu/compressed_rule_detail.hpp"

namespace mwsep::cpu {

namespace {
/// Fixed chunks of the sums of the recurrence (see discrete_recurrence).
constexpr std::size_t recurrence_chunks = 64;
}  // namespace

Recurrence discrete_recurrence(const std::vector<long double>& x, const std::vector<long double>& w, int n) {
    const std::size_t N = x.size();
    if (w.size() != N) throw std::invalid_argument("discrete_recurrence: nodes and weights differ in number");
    if (n < 1 || static_cast<std::size_t>(n) > N)
        throw std::invalid_argument("discrete_recurrence: " + std::to_string(n) + " coefficients asked of a measure of " +
                                    std::to_string(N) + " points");
    Recurrence rec;
    long double lo = x[0], hi = x[0];
    for (std::size_t m = 0; m < N; ++m) {
        if (!std::isfinite(x[m])) throw std::invalid_argument("discrete_recurrence: a node is not finite");
        if (!(w[m] > 0) || !std::isfinite(w[m])) throw std::invalid_argument("discrete_recurrence: a weight is not positive and finite");
        lo = std::min(lo, x[m]);
        hi = std::max(hi, x[m]);
        rec.mass += w[m];
    }
    rec.centre = (lo + hi) / 2;
    rec.half_width = hi > lo ? (hi - lo) / 2 : 1;
    std::vector<long double> t(N), v(N), prev(N, 0.0L), u(N);
    for (std::size_t m = 0; m < N; ++m) {
        t[m] = (x[m] - rec.centre) / rec.half_width;
        v[m] = std::sqrt(w[m] / rec.mass);
    }
    rec.alpha.resize(n);
    rec.beta.resize(n > 1 ? n - 1 : 0);
    // The points split into recurrence_chunks fixed chunks; each pass adds its partial sums chunk by chunk
    // and the chunks in order, so the coefficients do not depend on how many threads share the chunks.
    // A thread always owns the same chunks, so only the sums need a barrier.
    const std::size_t chunks = std::min<std::size_t>(recurrence_chunks, N);
    const auto chunk_begin = [&](std::size_t c) { return c * N / chunks; };
    std::vector<long double> part_a(chunks), part_c1(chunks), part_c2(chunks), part_norm(chunks);
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    // Threads pay only when every one has a few thousand points per pass.
    const std::size_t n_threads = std::clamp<std::size_t>(N / 8192, 1, std::min<std::size_t>(hw, chunks));
    const auto ordered = [](const std::vector<long double>& part) {
        long double sum = 0;
        for (const long double p : part) sum += p;
        return sum;
    };
    std::barrier sync(static_cast<std::ptrdiff_t>(n_threads));
    bool failed = false;
    const auto worker = [&](std::size_t id) {
        long double beta_k = 0;  // beta coupling k - 1 and k
        for (int k = 0; k < n; ++k) {
            // u = t v - beta_k prev and its component along v, in one pass.
            for (std::size_t c = id; c < chunks; c += n_threads) {
                long double a = 0;
                for (std::size_t m = chunk_begin(c); m < chunk_begin(c + 1); ++m) {
                    u[m] = t[m] * v[m] - beta_k * prev[m];
                    a += v[m] * u[m];
                }
                part_a[c] = a;
            }
            sync.arrive_and_wait();
            const long double a = ordered(part_a);
            // Subtract it, then re-orthogonalise against the two vectors the recurrence involves: what
            // rounding left along v goes into the coefficient, what it left along prev is removed.
            for (std::size_t c = id; c < chunks; c += n_threads) {
                long double c1 = 0, c2 = 0;
                for (std::size_t m = chunk_begin(c); m < chunk_begin(c + 1); ++m) {
                    u[m] -= a * v[m];
                    c1 += v[m] * u[m];
                    c2 += prev[m] * u[m];
                }
                part_c1[c] = c1, part_c2[c] = c2;
            }
            sync.arrive_and_wait();
            const long double c1 = ordered(part_c1), c2 = ordered(part_c2);
            if (id == 0) rec.alpha[k] = a + c1;
            if (k == n - 1) break;
            for (std::size_t c = id; c < chunks; c += n_threads) {
                long double norm_sq = 0;
                for (std::size_t m = chunk_begin(c); m < chunk_begin(c + 1); ++m) {
                    u[m] -= c1 * v[m] + c2 * prev[m];
                    norm_sq += u[m] * u[m];
                }
                part_norm[c] = norm_sq;
            }
            sync.arrive_and_wait();
            beta_k = std::sqrt(ordered(part_norm));
            if (!(beta_k > 0)) {  // every thread sees the same value and stops at the same step
                if (id == 0) failed = true;
                break;
            }
            if (id == 0) rec.beta[k] = beta_k;
            const long double scale = 1 / beta_k;
            for (std::size_t c = id; c < chunks; c += n_threads)
                for (std::size_t m = chunk_begin(c); m < chunk_begin(c + 1); ++m) {
                    prev[m] = v[m];
                    v[m] = u[m] * scale;
                }
        }
    };
    {
        std::vector<std::jthread> team;
        for (std::size_t id = 1; id < n_threads; ++id) team.emplace_back(worker, id);
        worker(0);
    }
    if (failed) throw std::runtime_error("discrete_recurrence: the measure has fewer than " + std::to_string(n) + " distinct points");
    return rec;
}

GaussRuleLd gauss_rule(const Recurrence& rec, int n) {
    if (n < 1 || n > static_cast<int>(rec.alpha.size()))
        throw std::invalid_argument("gauss_rule: " + std::to_string(n) + " nodes asked of a recurrence of length " +
                                    std::to_string(rec.alpha.size()));
    // Eigenvalues d and the first components z of the eigenvectors of the symmetric tridiagonal Jacobi
    // matrix (diagonal alpha, off-diagonal beta), by the implicit QL iteration with Wilkinson-type shifts.
    // Only the first row of the eigenvector matrix is carried along: the weights need nothing else.
    std::vector<long double> d(rec.alpha.begin(), rec.alpha.begin() + n), e(n, 0.0L), z(n, 0.0L);
    for (int i = 0; i + 1 < n; ++i) e[i] = rec.beta[i];
    z[0] = 1;
    constexpr long double eps = std::numeric_limits<long double>::epsilon();
    for (int l = 0; l < n; ++l) {
        for (int iteration = 0;; ++iteration) {
            int m = l;
            for (; m + 1 < n; ++m)
                if (std::fabs(e[m]) <= eps * std::max(std::fabs(d[m]) + std::fabs(d[m + 1]), 1.0L)) break;  // |J| <= 1 in t
            if (m == l) break;
            if (iteration == 60) throw std::runtime_error("gauss_rule: the eigenvalue iteration did not converge");
            // Shift from the leading 2x2 block, then chase the bulge from m back up to l.
            long double g = (d[l + 1] - d[l]) / (2 * e[l]);
            long double r = std::hypot(g, 1.0L);
            g = d[m] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
            long double s = 1, c = 1, p = 0;
            bool deflated = false;
            for (int i = m - 1; i >= l; --i) {
                const long double f = s * e[i], b = c * e[i];
                r = std::hypot(f, g);
                e[i + 1] = r;
                if (r == 0) {  // an exact split: the rest of this sweep is not needed
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
                const long double z_next = z[i + 1];
                z[i + 1] = s * z[i] + c * z_next;
                z[i] = c * z[i] - s * z_next;
            }
            if (deflated) continue;
            d[l] -= p;
            e[l] = g;
            e[m] = 0;
        }
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return d[a] < d[b]; });
    GaussRuleLd rule;
    rule.x.resize(n);
    rule.weight.resize(n);
    for (int i = 0; i < n; ++i) {
        rule.x[i] = rec.centre + rec.half_width * d[order[i]];
        rule.weight[i] = rec.mass * z[order[i]] * z[order[i]];
    }
    return rule;
}

bool detail::append_level(CompressedLadder& ladder, int n, GaussRuleLd rule, long double lo, long double hi, std::string& why) {
    std::vector<double> r(n), wt(n), xs(n);
    for (int i = 0; i < n; ++i) {
        // A node that converged onto an end point of the measure can land a rounding error outside it; it is
        // put back on the end point. Anything larger is a broken construction.
        const long double outside = std::max(lo - rule.x[i], rule.x[i] - hi);
        if (outside > 1e-15L * (hi - lo)) {
            why = "node " + std::to_string(i) + " of the " + std::to_string(n) + "-node rule lies outside the measure";
            return false;
        }
        rule.x[i] = std::clamp(rule.x[i], lo, hi);
        if (!(rule.weight[i] > 0) || !std::isfinite(static_cast<double>(rule.weight[i]))) {
            why = "weight " + std::to_string(i) + " of the " + std::to_string(n) + "-node rule is not positive";
            return false;
        }
        xs[i] = static_cast<double>(rule.x[i]);
        r[i] = static_cast<double>(std::exp(rule.x[i]));
        wt[i] = static_cast<double>(rule.weight[i]);
    }
    // The guard works in the precision the rule is used in: two nodes equal once stored as double (in x or
    // in r) are one evaluation point for the integrators, and such a level resolves nothing its neighbour
    // below does not, so it and the levels above it are left out.
    for (int i = 0; i + 1 < n; ++i)
        if (!(xs[i] < xs[i + 1]) || !(r[i] < r[i + 1])) {
            why = "nodes " + std::to_string(i) + " and " + std::to_string(i + 1) + " of the " + std::to_string(n) +
                  "-node rule coincide in double";
            return false;
        }
    ladder.size.push_back(n);
    ladder.r.push_back(std::move(r));
    ladder.weight.push_back(std::move(wt));
    ladder.x.push_back(std::move(xs));
    ladder.rule.push_back(std::move(rule));
    return true;
}

std::vector<int> detail::candidate_sizes(std::size_t points) {
    std::vector<int> sizes;
    for (const int n : ladder_sizes)
        if (static_cast<std::size_t>(n) * 4 <= points) sizes.push_back(n);
    if (sizes.size() < 2)
        throw std::invalid_argument("compressed rule: the line of sight has " + std::to_string(points) +
                                    " points, too few for two rules of " + std::to_string(ladder_smallest) + " and " +
                                    std::to_string(2 * ladder_smallest) + " nodes");
    return sizes;
}

detail::Frame detail::frame_of(const geometry::FoldedLineOfSight& los) {
    detail::Frame f;
    if (los.r_point.empty() || los.weight.size() != los.r_point.size())
        throw std::invalid_argument("compressed rule: the line of sight's distances and weights differ in number");
    for (const double r : los.r_point)
        if (!(r > 0) || !std::isfinite(r)) throw std::invalid_argument("compressed rule: a line-of-sight distance is not positive and finite");
    for (const double w : los.weight)
        if (!(w > 0) || !std::isfinite(w)) throw std::invalid_argument("compressed rule: a line-of-sight weight is not positive and finite");
    const auto [lo_it, hi_it] = std::minmax_element(los.r_point.begin(), los.r_point.end());
    f.lo = std::log(static_cast<long double>(*lo_it));
    f.hi = std::log(static_cast<long double>(*hi_it));
    f.centre = (f.lo + f.hi) / 2;
    f.half = f.hi > f.lo ? (f.hi - f.lo) / 2 : 1;
    return f;
}

// The fast construction is compiled for the build's instruction set; in a portable build on x86-64 that is
// AVX2 with FMA (MWSEP_RULES_NEED_AVX2_FMA), which this file, compiled without them, checks before calling in.
bool detail::fast_construction_runs_here() {
#if defined(MWSEP_RULES_NEED_AVX2_FMA) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return true;
#endif
}

Recurrence fast_recurrence(const geometry::FoldedLineOfSight& los, int n) {
    if (!detail::fast_construction_runs_here())
        throw std::runtime_error("fast_recurrence: this processor lacks the instructions it is compiled for (AVX2 and FMA)");
    return detail::fast_recurrence(los, n);
}

CompressedLadder build_ladder(const geometry::FoldedLineOfSight& los) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string why = "this processor lacks the instructions it is compiled for";
    if (detail::fast_construction_runs_here()) {
        CompressedLadder ladder;
        if (detail::build_ladder_fast(los, ladder)) return ladder;
        why = ladder.stopped;
    } else {
        // The checks the fast construction would have made on the measure.
        detail::candidate_sizes(los.r_point.size());
        detail::frame_of(los);
    }
    // The long-double construction decides.
    CompressedLadder reference = build_ladder_reference(los);
    reference.construction = "reference (the fast construction: " + why + ")";
    reference.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return reference;
}

CompressedLadder build_ladder_reference(const geometry::FoldedLineOfSight& los) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<int> sizes = detail::candidate_sizes(los.r_point.size());
    const detail::Frame f = detail::frame_of(los);
    const std::size_t N = los.r_point.size();
    std::vector<long double> x(N), w(N);
    for (std::size_t m = 0; m < N; ++m) {
        x[m] = std::log(static_cast<long double>(los.r_point[m]));
        w[m] = los.weight[m];
    }
    CompressedLadder ladder;
    ladder.construction = "reference";
    ladder.x_min = static_cast<double>(f.lo);
    ladder.x_max = static_cast<double>(f.hi);
    const Recurrence rec = discrete_recurrence(x, w, sizes.back());
    for (std::size_t level = 0; level < sizes.size(); ++level) {
        const int n = sizes[level];
        GaussRuleLd rule = gauss_rule(rec, n);
        // Where the recurrence has lost orthogonality (finite-precision Lanczos), nodes come in near-equal
        // pairs; append_level leaves out the first level whose nodes coincide in double and those above it.
        std::string why;
        if (!detail::append_level(ladder, n, std::move(rule), f.lo, f.hi, why)) {
            ladder.stopped = why;
            break;
        }
    }
    if (ladder.levels() < 2) throw std::runtime_error("compressed rule: " + ladder.stopped);
    ladder.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return ladder;
}

std::shared_ptr<const CompressedLadder> cached_ladder(const geometry::FoldedLineOfSight& los) {
    // FNV-1a over the bits of every distance and weight: equal keys mean the same measure (a collision of
    // different measures of the same size is not a practical concern for a handful of grids per process).
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](const std::vector<double>& v) {
        for (const double d : v) {
            std::uint64_t bits;
            std::memcpy(&bits, &d, sizeof bits);
            h = (h ^ bits) * 1099511628211ull;
        }
    };
    mix(los.r_point);
    mix(los.weight);
    static std::mutex mutex;
    static std::map<std::pair<std::uint64_t, std::size_t>, std::shared_ptr<const CompressedLadder>> cache;
    const auto key = std::make_pair(h, los.r_point.size());
    {
        const std::lock_guard lock(mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    auto built = std::make_shared<const CompressedLadder>(build_ladder(los));
    const std::lock_guard lock(mutex);
    if (cache.size() >= 8) cache.erase(cache.begin());  // a few grids per process at most
    return cache.emplace(key, std::move(built)).first->second;
}

}  // namespace mwsep::cpu
