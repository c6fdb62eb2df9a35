#include "mwsep/fit/thesis_search.hpp"

#include "mwsep/fit/search_state.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace mwsep::fit {
namespace {

using namespace search_state;

/// A step that improves L by less than this ends a gradient search: the polish's own tolerance, far below the
/// 0.5 / (N ln 10) that one unit of ln likelihood is worth for any catalogue of fewer than 10^11 stars.
constexpr double least_improvement = 1e-12;
constexpr const char* converged_message = "the last step improved L by less than 1e-12";

/// x + alpha d, each coordinate kept in [0, 1] (rounding may step over a face the step was limited to).
std::vector<double> along(const std::vector<double>& x, double alpha, const std::vector<double>& d) {
    std::vector<double> p(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) p[i] = std::clamp(x[i] + alpha * d[i], 0.0, 1.0);
    return p;
}

/// The largest alpha >= 0 with x + alpha d inside the unit box.
double room_along(const std::vector<double>& x, const std::vector<double>& d) {
    double room = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (d[i] > 0) room = std::min(room, (1.0 - x[i]) / d[i]);
        if (d[i] < 0) room = std::min(room, -x[i] / d[i]);
    }
    return std::max(room, 0.0);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

/// The gradient of L at @p x (likelihood @p fx) by central differences with step @p h in every coordinate, its
/// 2n points one batch; a point that would leave the box stays on its face, so the difference there is one-sided
/// (and uses @p fx, not evaluated again). A side without a likelihood gives the other side's one-sided difference;
/// both without: 0. Then projected on the box: a component pushing out through a face the point lies on is 0.
std::vector<double> central_gradient(const std::vector<double>& x, double fx, double h, const UnitEvaluate& evaluate) {
    const std::size_t n = x.size();
    Batch points;
    std::vector<double> up(n), down(n);
    std::vector<long> up_at(n, -1), down_at(n, -1);  // the batch index of each side; -1: x itself
    for (std::size_t i = 0; i < n; ++i) {
        up[i] = std::min(1.0, x[i] + h);
        down[i] = std::max(0.0, x[i] - h);
        for (const bool is_up : {true, false}) {
            const double v = is_up ? up[i] : down[i];
            if (v == x[i]) continue;
            auto p = x;
            p[i] = v;
            (is_up ? up_at : down_at)[i] = static_cast<long>(points.size());
            points.push_back(std::move(p));
        }
    }
    const auto f = evaluate(points);
    std::vector<double> g(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const double fu = up_at[i] < 0 ? fx : f[static_cast<std::size_t>(up_at[i])];
        const double fd = down_at[i] < 0 ? fx : f[static_cast<std::size_t>(down_at[i])];
        if (std::isfinite(fu) && std::isfinite(fd)) g[i] = (fu - fd) / (up[i] - down[i]);
        else if (std::isfinite(fu) && up[i] != x[i]) g[i] = (fu - fx) / (up[i] - x[i]);
        else if (std::isfinite(fd) && down[i] != x[i]) g[i] = (fx - fd) / (x[i] - down[i]);
        if ((x[i] <= 0 && g[i] < 0) || (x[i] >= 1 && g[i] > 0)) g[i] = 0;
    }
    return g;
}

/// @p d divided by its largest absolute component; false (and @p d unchanged) when that is 0 or not finite.
bool normalised(std::vector<double>& d) {
    double scale = 0;
    for (const double v : d) scale = std::max(scale, std::abs(v));
    if (!(scale > 0) || !std::isfinite(scale)) return false;
    for (double& v : d) v /= scale;
    return true;
}

// ---- conjugate gradient descent (Cole et al. 2008) ---------------------------------------------------------

/// Conjugate gradient ascent: each iteration one central-difference gradient (one batch of 2n points), a
/// Polak-Ribiere direction (reset to the gradient every n iterations, and whenever the conjugate direction does
/// not climb or its line search finds no better point), and a line search along it: the first trial step is
/// the previous iteration's (5 % of the box at first) and is halved until L improves, then doubled while L
/// improves, then the bracket is refined by three parabolic steps through its three points.
class ConjugateGradient : public GenerationSearch {
public:
    ConjugateGradient(std::size_t n, double h, UnitEvaluate evaluate) : n_(n), h_(h), evaluate_(std::move(evaluate)) {}

    void begin(const std::vector<double>& start, double start_likelihood) override {
        x_ = start;
        fx_ = std::isfinite(start_likelihood) ? start_likelihood : ranked(evaluate_({x_})[0]);
    }

    bool step() override {
        if (!stopped_by_.empty()) return false;
        const std::vector<double> g = central_gradient(x_, fx_, h_, evaluate_);
        std::vector<double> d = g;
        bool conjugate = false;
        if (since_restart_ > 0 && since_restart_ < n_ && !previous_gradient_.empty()) {
            // Polak-Ribiere, kept >= 0 (a negative beta restarts along the gradient).
            double dg = 0;
            for (std::size_t i = 0; i < n_; ++i) dg += g[i] * (g[i] - previous_gradient_[i]);
            const double beta = std::max(0.0, dg / dot(previous_gradient_, previous_gradient_));
            if (beta > 0 && std::isfinite(beta)) {
                for (std::size_t i = 0; i < n_; ++i) {
                    d[i] = g[i] + beta * previous_direction_[i];
                    if ((x_[i] <= 0 && d[i] < 0) || (x_[i] >= 1 && d[i] > 0)) d[i] = 0;  // not out through a face
                }
                conjugate = dot(d, g) > 0;
                if (!conjugate) d = g;
            }
        }
        previous_gradient_ = g;
        ++iteration_;
        for (int attempt = 0; attempt < 2; ++attempt) {
            std::vector<double> unit = d;
            if (!normalised(unit)) {
                stopped_by_ = "the gradient is zero within the box (a maximum at the gradient's resolution, or a corner)";
                return false;
            }
            double alpha = 0, f = fx_;
            std::vector<double> x = line_search(unit, alpha, f);
            if (f > fx_) {
                const double gain = f - fx_;
                x_ = std::move(x), fx_ = f;
                alpha_ = std::max(alpha, 1e-9);
                previous_direction_ = d;
                since_restart_ = conjugate ? since_restart_ + 1 : 1;
                if (gain < least_improvement) {
                    stopped_by_ = converged_message;
                    return false;
                }
                return true;
            }
            if (!conjugate) break;
            d = g, conjugate = false;  // the conjugate direction found nothing: the gradient itself, same point
        }
        stopped_by_ = "no step along the gradient improves L (a maximum at the line search's resolution)";
        since_restart_ = 0;
        return false;
    }

    const std::vector<double>& best() const override { return x_; }
    double best_likelihood() const override { return fx_; }
    std::vector<std::pair<std::vector<double>, double>> members() const override { return {{x_, fx_}}; }

    std::string save() const override {
        std::string s = "cgd 1\niteration " + std::to_string(iteration_) + "\nsince_restart " +
                        std::to_string(since_restart_) + "\nalpha " + number(alpha_) + "\n";
        s += "gradient" + numbers(previous_gradient_) + "\ndirection" + numbers(previous_direction_) + "\n";
        return s + "stopped " + stopped_by_ + "\n";
    }

    void load(const std::string& state, const std::vector<std::pair<std::vector<double>, double>>& members) override {
        check_members(members, n_, 1);
        StateReader r(state, "cgd 1");
        const auto it = r.next("iteration");
        iteration_ = static_cast<unsigned>(r.whole(it.size() == 1 ? it[0] : "", 0, 100000000));
        const auto sr = r.next("since_restart");
        since_restart_ = static_cast<std::size_t>(r.whole(sr.size() == 1 ? sr[0] : "", 0, static_cast<long long>(n_)));
        const auto a = r.next("alpha");
        alpha_ = r.reals(a, 1, 1e-9, 1e9)[0];
        const auto g = r.next("gradient");
        previous_gradient_ = g.empty() ? std::vector<double>{} : r.reals(g, n_, -1e300, 1e300);
        const auto d = r.next("direction");
        previous_direction_ = d.empty() ? std::vector<double>{} : r.reals(d, n_, -1e300, 1e300);
        stopped_by_ = r.text("stopped");
        r.end();
        x_ = members[0].first;
        fx_ = members[0].second;
    }

private:
    /// The bracketing line search along @p d (largest component 1) from x_: returns the best point, its step
    /// in @p alpha and likelihood in @p f (x_ itself, alpha 0 and fx_ when no step improves L).
    // [cgd-line-search-begin]
    std::vector<double> line_search(const std::vector<double>& d, double& alpha, double& f) {
        const double room = room_along(x_, d);
        const auto at = [&](double a) { return ranked(evaluate_({along(x_, a, d)})[0]); };
        alpha = 0, f = fx_;
        if (!(room > 0)) return x_;
        double a2 = std::min(alpha_, room), f2 = at(a2);
        for (int halvings = 0; !(f2 > fx_) && halvings < 30; ++halvings) a2 *= 0.5, f2 = at(a2);
        if (!(f2 > fx_)) return x_;
        double a1 = 0, f1 = fx_;
        double a3 = std::min(2 * a2, room), f3 = minus_infinity;
        if (a3 > a2) {
            f3 = at(a3);
            for (int doublings = 0; f3 > f2 && doublings < 30; ++doublings) {
                a1 = a2, f1 = f2, a2 = a3, f2 = f3;
                a3 = std::min(2 * a2, room);
                if (!(a3 > a2)) break;  // the box's face: the best step is on it
                f3 = at(a3);
            }
        }
        if (a3 > a2 && f2 >= f3) {
            // a1 < a2 < a3 with f2 the highest: three parabolic steps through the bracket's points (a golden
            // section step into the larger side where the parabola's vertex is not strictly inside).
            for (int q = 0; q < 3; ++q) {
                const double num = (a2 - a1) * (a2 - a1) * (f2 - f3) - (a2 - a3) * (a2 - a3) * (f2 - f1);
                const double den = (a2 - a1) * (f2 - f3) - (a2 - a3) * (f2 - f1);
                double as = den != 0 ? a2 - 0.5 * num / den : std::numeric_limits<double>::quiet_NaN();
                if (!(as > a1 && as < a3) || as == a2)
                    as = a3 - a2 > a2 - a1 ? a2 + 0.381966 * (a3 - a2) : a2 - 0.381966 * (a2 - a1);
                const double fs = at(as);
                if (as > a2) {
                    if (fs > f2) a1 = a2, f1 = f2, a2 = as, f2 = fs;
                    else a3 = as, f3 = fs;
                } else {
                    if (fs > f2) a3 = a2, f3 = f2, a2 = as, f2 = fs;
                    else a1 = as, f1 = fs;
                }
            }
        }
        alpha = a2, f = f2;
        return along(x_, a2, d);
    }
    // [cgd-line-search-end]

    std::size_t n_;
    double h_;
    UnitEvaluate evaluate_;
    std::vector<double> x_;
    double fx_ = minus_infinity;
    std::vector<double> previous_gradient_, previous_direction_;
    std::size_t since_restart_ = 0;
    double alpha_ = 0.05;
    unsigned iteration_ = 0;
};

// ---- gradient ascent with the server's randomized line search -------------------------------------------

/// The least-squares parabola y = a t^2 + b t + c through (t_k, y_k); false where the points do not determine one.
bool fit_parabola(const std::vector<double>& t, const std::vector<double>& y, double& a, double& b, double& c) {
    double m[3][4] = {};
    for (std::size_t k = 0; k < t.size(); ++k) {
        const double row[3] = {t[k] * t[k], t[k], 1.0};
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) m[i][j] += row[i] * row[j];
            m[i][3] += row[i] * y[k];
        }
    }
    for (int col = 0; col < 3; ++col) {  // Gaussian elimination with partial pivoting
        int p = col;
        for (int i = col + 1; i < 3; ++i)
            if (std::abs(m[i][col]) > std::abs(m[p][col])) p = i;
        if (!(std::abs(m[p][col]) > 1e-300)) return false;
        for (int j = 0; j < 4; ++j) std::swap(m[col][j], m[p][j]);
        for (int i = 0; i < 3; ++i) {
            if (i == col) continue;
            const double factor = m[i][col] / m[col][col];
            for (int j = col; j < 4; ++j) m[i][j] -= factor * m[col][j];
        }
    }
    a = m[0][3] / m[0][0], b = m[1][3] / m[1][1], c = m[2][3] / m[2][2];
    return std::isfinite(a) && std::isfinite(b) && std::isfinite(c);
}

/// Each iteration: the gradient (one batch of 2n points), then `population` points drawn uniformly along it
/// within [-range / 2, range] of the step (one batch, spread over the workers as the server spread them over
/// volunteers), a parabola fitted to them and the current point by least squares, and its vertex evaluated when
/// it is a maximum inside the sampled span. The best of these becomes the next point. The range follows the step
/// taken (three times it, within a quarter and four times the previous range) and shrinks fourfold when no
/// point improves L; the search stops when it falls below 1e-10 of the box.
class RandomisedLine : public GenerationSearch {
public:
    RandomisedLine(std::size_t n, double h, unsigned points, unsigned seed, UnitEvaluate evaluate)
        : n_(n), h_(h), points_(points), rng_(seed), evaluate_(std::move(evaluate)) {}

    void begin(const std::vector<double>& start, double start_likelihood) override {
        x_ = start;
        fx_ = std::isfinite(start_likelihood) ? start_likelihood : ranked(evaluate_({x_})[0]);
    }

    bool step() override {
        if (!stopped_by_.empty()) return false;
        std::vector<double> d = central_gradient(x_, fx_, h_, evaluate_);
        ++iteration_;
        if (!normalised(d)) {
            stopped_by_ = "the gradient is zero within the box (a maximum at the gradient's resolution, or a corner)";
            return false;
        }
        std::vector<double> back(d);
        for (double& v : back) v = -v;
        const double hi = std::min(range_, room_along(x_, d)), lo = -std::min(0.5 * range_, room_along(x_, back));
        double best_alpha = 0, best_f = fx_;
        if (hi > lo) {
            Batch batch;
            std::vector<double> alphas;
            for (unsigned k = 0; k < points_; ++k) {
                alphas.push_back(lo + uniform01(rng_) * (hi - lo));
                batch.push_back(along(x_, alphas.back(), d));
            }
            const auto f = evaluate_(batch);
            // The parabola in t = alpha / scale (t within [-1, 1]: well conditioned), through every point with a
            // likelihood and the current one.
            const double scale = std::max(hi, -lo);
            std::vector<double> t{0.0}, y{fx_};
            for (unsigned k = 0; k < points_; ++k) {
                if (std::isfinite(f[k])) t.push_back(alphas[k] / scale), y.push_back(f[k]);
                if (ranked(f[k]) > best_f) best_f = f[k], best_alpha = alphas[k];
            }
            double a = 0, b = 0, c = 0;
            if (t.size() >= 3 && fit_parabola(t, y, a, b, c) && a < 0) {
                const double vertex = std::clamp(-b / (2 * a), lo / scale, hi / scale) * scale;
                const double fv = ranked(evaluate_({along(x_, vertex, d)})[0]);
                if (fv > best_f) best_f = fv, best_alpha = vertex;
            }
        }
        if (best_f > fx_) {
            const double gain = best_f - fx_;
            x_ = along(x_, best_alpha, d), fx_ = best_f;
            range_ = std::clamp(3 * std::abs(best_alpha), range_ / 4, std::min(4 * range_, 1.0));
            if (gain < least_improvement) {
                stopped_by_ = converged_message;
                return false;
            }
        } else {
            range_ /= 4;
            if (range_ < 1e-10) {
                stopped_by_ = "no point along the gradient improves L and the line's range fell below 1e-10 of the box";
                return false;
            }
        }
        return true;
    }

    const std::vector<double>& best() const override { return x_; }
    double best_likelihood() const override { return fx_; }
    std::vector<std::pair<std::vector<double>, double>> members() const override { return {{x_, fx_}}; }

    std::string save() const override {
        return "line 1\niteration " + std::to_string(iteration_) + "\nrange " + number(range_) + "\nrng " +
               engine_text(rng_) + "\nstopped " + stopped_by_ + "\n";
    }

    void load(const std::string& state, const std::vector<std::pair<std::vector<double>, double>>& members) override {
        check_members(members, n_, 1);
        StateReader r(state, "line 1");
        const auto it = r.next("iteration");
        iteration_ = static_cast<unsigned>(r.whole(it.size() == 1 ? it[0] : "", 0, 100000000));
        range_ = r.reals(r.next("range"), 1, 1e-300, 1.0)[0];
        rng_ = r.engine(r.next("rng"));
        stopped_by_ = r.text("stopped");
        r.end();
        x_ = members[0].first;
        fx_ = members[0].second;
    }

private:
    std::size_t n_;
    double h_;
    unsigned points_;
    std::mt19937_64 rng_;
    UnitEvaluate evaluate_;
    std::vector<double> x_;
    double fx_ = minus_infinity;
    double range_ = 0.1;
    unsigned iteration_ = 0;
};

// ---- the asynchronous genetic search of MilkyWay@Home's server ------------------------------------------

/// A population of the best `population` results. Each round, every free slot of `in_flight` receives a new
/// individual generated from the population as it stands (results still in flight are not in it): random in the
/// box while the population is not full, then by one of the server's operators, chosen at random: mutation (10 %:
/// a member with one parameter drawn anew), double shot (30 %: two members' average, or one of the two points as
/// far beyond each parent), or the probabilistic simplex (60 %: four members, the worst reflected through the
/// others' centroid by a random factor in [-0.5, 1.5]). The round's individuals are evaluated as one batch, over
/// every worker. Each result then arrives at the end of the round, or, with the simulated fractions, late (1 to
/// max_delay rounds) or never (its slot is freed after max_delay + 1 rounds). Arriving results are inserted in a
/// random order: a result better than the population's worst, and not already in it, replaces the worst.
class AsyncGenetic : public GenerationSearch {
public:
    AsyncGenetic(std::size_t n, const ThesisSettings& s, UnitEvaluate evaluate)
        : n_(n), size_(s.population), slots_(s.in_flight ? s.in_flight : s.population), late_(s.late_fraction),
          lost_(s.lost_fraction), max_delay_(s.max_delay), rng_(s.seed), evaluate_(std::move(evaluate)) {}

    void begin(const std::vector<double>& start, double start_likelihood) override {
        // The start is the server's own: evaluated (if not known) and in the population from the first round.
        start_ = start;
        const double fs = std::isfinite(start_likelihood) ? start_likelihood : ranked(evaluate_({start})[0]);
        if (std::isfinite(fs)) insert(start, fs);
        round_ = 0;
        run_round();
    }

    bool step() override {
        ++round_;
        run_round();
        return true;
    }

    const std::vector<double>& best() const override { return population_.empty() ? start_ : population_[best_index()].first; }
    double best_likelihood() const override { return population_.empty() ? minus_infinity : population_[best_index()].second; }
    std::vector<std::pair<std::vector<double>, double>> members() const override { return population_; }

    std::string save() const override {
        std::string s = "async-ga 1\nround " + std::to_string(round_) + "\nrng " + engine_text(rng_) + "\nflight " +
                        std::to_string(flight_.size()) + "\n";
        for (const auto& f : flight_)
            s += "f " + std::to_string(f.arrival) + " " + std::to_string(f.release) + " " + number(f.likelihood) +
                 numbers(f.x) + "\n";
        return s;
    }

    void load(const std::string& state, const std::vector<std::pair<std::vector<double>, double>>& members) override {
        check_members(members, n_, size_);
        StateReader r(state, "async-ga 1");
        const auto rd = r.next("round");
        round_ = static_cast<unsigned>(r.whole(rd.size() == 1 ? rd[0] : "", 0, 100000000));
        rng_ = r.engine(r.next("rng"));
        const auto fl = r.next("flight");
        const auto count = r.whole(fl.size() == 1 ? fl[0] : "", 0, slots_);
        flight_.clear();
        for (long long k = 0; k < count; ++k) {
            const auto f = r.next("f");
            if (f.size() != 3 + n_) throw r.error("an individual in flight needs " + std::to_string(3 + n_) + " values");
            InFlight one;
            one.arrival = r.whole(f[0], -1, static_cast<long long>(round_) + max_delay_ + 1);
            one.release = r.whole(f[1], static_cast<long long>(round_) + 1, static_cast<long long>(round_) + max_delay_ + 1);
            one.likelihood = r.real(f[2], false);
            if (std::isinf(one.likelihood) && one.likelihood > 0) throw r.error("an infinite likelihood");
            one.x = r.reals(std::vector<std::string>(f.begin() + 3, f.end()), n_, 0.0, 1.0);
            if (one.arrival >= 0 && one.arrival <= static_cast<long long>(round_)) throw r.error("a result due before now");
            flight_.push_back(std::move(one));
        }
        r.end();
        population_ = members;
        start_ = population_.front().first;
    }

private:
    struct InFlight {
        std::vector<double> x;
        double likelihood = 0;
        long long arrival = -1;  ///< the round at whose end it arrives; -1: lost
        long long release = 0;   ///< the first round whose slots no longer count it
    };

    std::size_t best_index() const {
        std::size_t b = 0;
        for (std::size_t i = 1; i < population_.size(); ++i)
            if (population_[i].second > population_[b].second) b = i;
        return b;
    }

    void insert(const std::vector<double>& x, double l) {
        if (!std::isfinite(l)) return;  // a result without a likelihood is refused, as the server refused it
        for (const auto& m : population_)
            if (m.first == x) return;  // already known
        if (population_.size() < size_) {
            population_.emplace_back(x, l);
            return;
        }
        std::size_t worst = 0;
        for (std::size_t i = 1; i < population_.size(); ++i)
            if (population_[i].second < population_[worst].second) worst = i;
        if (l > population_[worst].second) population_[worst] = {x, l};
    }

    std::vector<double> random_point() {
        std::vector<double> x(n_);
        for (double& v : x) v = uniform01(rng_);
        return x;
    }

    /// Distinct members, @p k of them, chosen at random.
    std::vector<std::size_t> parents(std::size_t k) {
        std::vector<std::size_t> all(population_.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
        for (std::size_t i = 0; i < k; ++i) std::swap(all[i], all[i + uniform_index(rng_, all.size() - i)]);
        all.resize(k);
        return all;
    }

    std::vector<double> offspring() {
        if (population_.size() < std::max<std::size_t>(size_, 4)) return random_point();
        const double pick = uniform01(rng_);
        std::vector<double> child(n_);
        if (pick < 0.1) {  // mutation
            child = population_[uniform_index(rng_, population_.size())].first;
            child[uniform_index(rng_, n_)] = uniform01(rng_);
        } else if (pick < 0.4) {  // double shot: the average, or as far beyond one parent
            const auto p = parents(2);
            const auto& a = population_[p[0]].first;
            const auto& b = population_[p[1]].first;
            const std::size_t which = uniform_index(rng_, 3);
            for (std::size_t i = 0; i < n_; ++i)
                child[i] = which == 0 ? 0.5 * (a[i] + b[i]) : which == 1 ? a[i] + 0.5 * (a[i] - b[i]) : b[i] + 0.5 * (b[i] - a[i]);
        } else {  // probabilistic simplex: the worst of four reflected through the others' centroid
            const auto p = parents(4);
            std::size_t worst = 0;
            for (std::size_t k = 1; k < p.size(); ++k)
                if (population_[p[k]].second < population_[p[worst]].second) worst = k;
            std::vector<double> centroid(n_, 0.0);
            for (std::size_t k = 0; k < p.size(); ++k)
                if (k != worst)
                    for (std::size_t i = 0; i < n_; ++i) centroid[i] += population_[p[k]].first[i] / double(p.size() - 1);
            const double lambda = -0.5 + 2.0 * uniform01(rng_);
            const auto& w = population_[p[worst]].first;
            for (std::size_t i = 0; i < n_; ++i) child[i] = centroid[i] + lambda * (centroid[i] - w[i]);
        }
        for (double& v : child) v = std::clamp(v, 0.0, 1.0);
        return child;
    }

    // [async-ga-round-begin]
    void run_round() {
        const long long now = round_;
        // Slots still taken: results not yet arrived, and lost ones until their release.
        std::size_t busy = 0;
        for (const auto& f : flight_) busy += f.release > now;
        Batch batch;
        for (std::size_t k = busy; k < slots_; ++k) batch.push_back(offspring());
        const auto l = batch.empty() ? std::vector<double>{} : evaluate_(batch);
        for (std::size_t k = 0; k < batch.size(); ++k) {
            InFlight f;
            f.x = std::move(batch[k]);
            f.likelihood = l[k];
            const double fate = uniform01(rng_);
            if (fate < lost_) {
                f.arrival = -1;
                f.release = now + max_delay_ + 1;
            } else {
                const long long delay = fate < lost_ + late_ ? 1 + static_cast<long long>(uniform_index(rng_, max_delay_)) : 0;
                f.arrival = now + delay;
                f.release = f.arrival + 1;
            }
            flight_.push_back(std::move(f));
        }
        // The results due now arrive in a random order.
        std::vector<InFlight> due, still;
        for (auto& f : flight_) {
            if (f.arrival == now) due.push_back(std::move(f));
            else if (f.arrival > now || (f.arrival < 0 && f.release > now + 1)) still.push_back(std::move(f));
        }
        for (std::size_t i = due.size(); i > 1; --i) std::swap(due[i - 1], due[uniform_index(rng_, i)]);
        for (const auto& f : due) insert(f.x, f.likelihood);
        flight_ = std::move(still);
    }
    // [async-ga-round-end]

    std::size_t n_;
    std::size_t size_;
    std::size_t slots_;
    double late_, lost_;
    unsigned max_delay_;
    std::mt19937_64 rng_;
    UnitEvaluate evaluate_;
    std::vector<std::pair<std::vector<double>, double>> population_;
    std::vector<InFlight> flight_;
    std::vector<double> start_;  // the best point while no result has a likelihood
    unsigned round_ = 0;
};

}  // namespace

bool is_thesis_algorithm(const std::string& algorithm) {
    return std::find(thesis_algorithm_names.begin(), thesis_algorithm_names.end(), algorithm) != thesis_algorithm_names.end();
}

double thesis_evaluations_per_generation(const ThesisSettings& s, std::size_t dimension) {
    const double gradient = 2.0 * static_cast<double>(dimension);
    if (s.algorithm == "cgd") return gradient + 10;  // a typical line search: a few trials, a doubling, three parabolas
    if (s.algorithm == "line") return gradient + s.population + 1;
    return s.in_flight ? s.in_flight : s.population;
}

std::unique_ptr<GenerationSearch> make_thesis_search(const ThesisSettings& s, std::size_t dimension, UnitEvaluate evaluate) {
    if (dimension == 0) throw std::invalid_argument("a search needs at least one parameter");
    if ((s.algorithm == "cgd" || s.algorithm == "line") && !(s.gradient_step > 0 && s.gradient_step <= 0.1))
        throw std::invalid_argument("the gradient step must lie in (0, 0.1] of the box, found " + number(s.gradient_step));
    if (s.algorithm == "cgd") return std::make_unique<ConjugateGradient>(dimension, s.gradient_step, std::move(evaluate));
    if (s.algorithm == "line") {
        if (s.population < 3) throw std::invalid_argument("line needs at least 3 points per line (--population)");
        return std::make_unique<RandomisedLine>(dimension, s.gradient_step, s.population, s.seed, std::move(evaluate));
    }
    if (s.algorithm == "async-ga") {
        if (s.population < 4) throw std::invalid_argument("async-ga needs a population of at least 4 (its simplex takes four)");
        if (!(s.late_fraction >= 0 && s.late_fraction <= 1) || !(s.lost_fraction >= 0 && s.lost_fraction <= 1) ||
            s.late_fraction + s.lost_fraction > 1)
            throw std::invalid_argument("the late and lost fractions must lie in [0, 1] and sum to at most 1");
        if (s.max_delay < 1 || s.max_delay > 1000) throw std::invalid_argument("the most delay must be 1 to 1000 rounds");
        if (s.in_flight > 100000) throw std::invalid_argument("at most 100000 evaluations in flight");
        return std::make_unique<AsyncGenetic>(dimension, s, std::move(evaluate));
    }
    throw std::invalid_argument("unknown thesis search '" + s.algorithm + "' (expected cgd, line or async-ga)");
}

}  // namespace mwsep::fit
