#include "mwsep/fit/cma_search.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "mwsep/fit/hessian.hpp"
#include "mwsep/fit/search_state.hpp"

namespace mwsep::fit {
namespace {

using namespace search_state;

/// The likelihood a saved point without one is kept with: the fit's penalty (a fitness of 1e3, optimizer.cpp),
/// since the checkpoint holds finite values only. The search's own best likelihood is saved in its state.
constexpr double no_likelihood_saved = -1e3;

/// The search stops once its steps are this small in every coordinate of the unit box: far below the resolution
/// of any likelihood difference the fit can see.
constexpr double smallest_step = 1e-12;

/// A standard normal number by the Box-Muller transform of two of uniform01()'s numbers (the standard library's
/// normal distribution is not the same on every platform).
double normal(std::mt19937_64& rng) {
    const double u1 = uniform01(rng), u2 = uniform01(rng);
    return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double norm(const std::vector<double>& v) {
    double s = 0;
    for (const double x : v) s += x * x;
    return std::sqrt(s);
}

// [cma-search-begin]
/// The (mu/mu_w, lambda)-CMA-ES (see cma_search.hpp). State: the mean m, the step size sigma, the covariance C,
/// the evolution paths p_c and p_sigma, the generation count and the random engine; B and D (C = B D^2 B^T) are
/// computed from C at the start of every generation.
class BatchedCma : public GenerationSearch {
public:
    BatchedCma(std::size_t n, unsigned lambda, unsigned seed, UnitEvaluate evaluate)
        : n_(n), lambda_(lambda), mu_(lambda / 2), rng_(seed), evaluate_(std::move(evaluate)) {
        // Strategy parameters (Hansen's tutorial, table 1, positive recombination weights only).
        for (std::size_t i = 0; i < mu_; ++i) weights_.push_back(std::log((lambda_ + 1) / 2.0) - std::log(i + 1.0));
        const double sum = std::accumulate(weights_.begin(), weights_.end(), 0.0);
        double squares = 0;
        for (double& w : weights_) w /= sum, squares += w * w;
        mu_eff_ = 1.0 / squares;
        const double dn = static_cast<double>(n_);
        c_c_ = (4 + mu_eff_ / dn) / (dn + 4 + 2 * mu_eff_ / dn);
        c_sigma_ = (mu_eff_ + 2) / (dn + mu_eff_ + 5);
        c_1_ = 2 / ((dn + 1.3) * (dn + 1.3) + mu_eff_);
        c_mu_ = std::min(1 - c_1_, 2 * (mu_eff_ - 2 + 1 / mu_eff_) / ((dn + 2) * (dn + 2) + mu_eff_));
        d_sigma_ = 1 + 2 * std::max(0.0, std::sqrt((mu_eff_ - 1) / (dn + 1)) - 1) + c_sigma_;
        chi_n_ = std::sqrt(dn) * (1 - 1 / (4 * dn) + 1 / (21 * dn * dn));
        covariance_.assign(n_ * n_, 0.0);
        for (std::size_t i = 0; i < n_; ++i) covariance_[i * n_ + i] = 1.0;
        p_c_.assign(n_, 0.0);
        p_sigma_.assign(n_, 0.0);
    }

    void begin(const std::vector<double>& start, double start_likelihood) override {
        mean_ = start;
        best_ = start;
        best_f_ = std::isfinite(start_likelihood) ? start_likelihood : ranked(evaluate_({start})[0]);
    }

    bool step() override {
        if (!stopped_by_.empty()) return false;
        // C = B diag(d^2) B^T (B's columns the eigenvectors, row-major in b); an eigenvalue that rounding left at or
        // below 0 is raised to a tiny positive one.
        const SymmetricEigen eigen = symmetric_eigen(covariance_, n_);
        const double largest = eigen.values.back();  // ascending
        std::vector<double> d(n_), b(n_ * n_);
        for (std::size_t j = 0; j < n_; ++j) {
            d[j] = std::sqrt(std::max(eigen.values[j], 1e-20 * largest));
            for (std::size_t i = 0; i < n_; ++i) b[i * n_ + j] = eigen.vectors[j][i];
        }

        // The generation: lambda points m + sigma B D z, z standard normal, moved onto the box where outside.
        Batch batch(lambda_, std::vector<double>(n_));
        for (auto& x : batch) {
            std::vector<double> dz(n_);
            for (std::size_t j = 0; j < n_; ++j) dz[j] = d[j] * normal(rng_);
            for (std::size_t i = 0; i < n_; ++i) {
                double y = 0;
                for (std::size_t j = 0; j < n_; ++j) y += b[i * n_ + j] * dz[j];
                x[i] = std::clamp(mean_[i] + sigma_ * y, 0.0, 1.0);
            }
        }
        const std::vector<double> f = evaluate_(batch);
        ++generation_;
        std::vector<std::size_t> order(lambda_);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) { return ranked(f[a]) > ranked(f[c]); });
        for (std::size_t k = 0; k < lambda_; ++k)
            if (ranked(f[k]) > best_f_) best_f_ = f[k], best_ = batch[k];
        if (!std::isfinite(f[order[mu_ - 1]])) {
            // Fewer than mu candidates have a likelihood: no ranking to learn from; closer steps next time.
            sigma_ /= 2;
            return check_step();
        }

        // Recombination: the new mean, and y_i = (x_i - m_old) / sigma of the mu best.
        const std::vector<double> old_mean = mean_;
        std::vector<std::vector<double>> y(mu_, std::vector<double>(n_));
        std::vector<double> y_w(n_, 0.0);
        for (std::size_t i = 0; i < mu_; ++i)
            for (std::size_t j = 0; j < n_; ++j) {
                y[i][j] = (batch[order[i]][j] - old_mean[j]) / sigma_;
                y_w[j] += weights_[i] * y[i][j];
            }
        for (std::size_t j = 0; j < n_; ++j) mean_[j] = std::clamp(old_mean[j] + sigma_ * y_w[j], 0.0, 1.0);

        // Step-size path: p_sigma <- (1 - c_sigma) p_sigma + sqrt(c_sigma (2 - c_sigma) mu_eff) C^-1/2 y_w.
        std::vector<double> bt_y(n_, 0.0), white(n_, 0.0);
        for (std::size_t j = 0; j < n_; ++j)
            for (std::size_t i = 0; i < n_; ++i) bt_y[j] += b[i * n_ + j] * y_w[i];
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t j = 0; j < n_; ++j) white[i] += b[i * n_ + j] * bt_y[j] / d[j];
        const double k_sigma = std::sqrt(c_sigma_ * (2 - c_sigma_) * mu_eff_);
        for (std::size_t i = 0; i < n_; ++i) p_sigma_[i] = (1 - c_sigma_) * p_sigma_[i] + k_sigma * white[i];
        const double p_sigma_norm = norm(p_sigma_);
        // h_sigma stalls the covariance path while the step-size path is long (a step size still growing).
        const double unbiased = std::sqrt(1 - std::pow(1 - c_sigma_, 2.0 * static_cast<double>(generation_)));
        const bool h_sigma = p_sigma_norm / unbiased < (1.4 + 2 / (static_cast<double>(n_) + 1)) * chi_n_;
        const double k_c = std::sqrt(c_c_ * (2 - c_c_) * mu_eff_);
        for (std::size_t i = 0; i < n_; ++i) p_c_[i] = (1 - c_c_) * p_c_[i] + (h_sigma ? k_c * y_w[i] : 0.0);

        // Covariance: rank-one update from p_c, rank-mu update from the mu best steps.
        const double lost = h_sigma ? 0.0 : c_c_ * (2 - c_c_);
        const double keep = 1 - c_1_ - c_mu_ + c_1_ * lost;
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                double rank_mu = 0;
                for (std::size_t k = 0; k < mu_; ++k) rank_mu += weights_[k] * y[k][i] * y[k][j];
                const double v = keep * covariance_[i * n_ + j] + c_1_ * p_c_[i] * p_c_[j] + c_mu_ * rank_mu;
                covariance_[i * n_ + j] = covariance_[j * n_ + i] = v;
            }

        // Step size: longer when the path is longer than a random walk's, shorter when shorter; at most the box.
        sigma_ = std::min(1.0, sigma_ * std::exp(c_sigma_ / d_sigma_ * (p_sigma_norm / chi_n_ - 1)));
        return check_step();
    }
    // [cma-search-end]

    const std::vector<double>& best() const override { return best_; }
    double best_likelihood() const override { return best_f_; }
    std::vector<std::pair<std::vector<double>, double>> members() const override {
        return {{best_, std::isfinite(best_f_) ? best_f_ : no_likelihood_saved}};
    }

    std::string save() const override {
        std::string s = "cmaes-batch 1\ngeneration " + std::to_string(generation_) + "\nsigma " + number(sigma_) +
                        "\nbest_likelihood " + number(best_f_) + "\nmean" + numbers(mean_) + "\npath_c" + numbers(p_c_) +
                        "\npath_sigma" + numbers(p_sigma_) + "\ncovariance" + numbers(covariance_) + "\nrng " +
                        engine_text(rng_) + "\nstopped " + stopped_by_ + "\n";
        return s;
    }

    void load(const std::string& state, const std::vector<std::pair<std::vector<double>, double>>& members) override {
        check_members(members, n_, 1);
        StateReader r(state, "cmaes-batch 1");
        const auto g = r.next("generation");
        const auto generation = static_cast<unsigned>(r.whole(g.size() == 1 ? g[0] : "", 0, 100000000));
        const auto sg = r.next("sigma");
        const double sigma = r.reals(sg, 1, 0.0, 1.0)[0];
        if (!(sigma > 0)) throw r.error("the step size must be positive");
        const auto bl = r.next("best_likelihood");
        if (bl.size() != 1) throw r.error("expected 1 value");
        const double best_f = r.real(bl[0], false);
        if (std::isnan(best_f) || (std::isinf(best_f) && best_f > 0)) throw r.error("a best likelihood that is NaN or +inf");
        auto mean = r.reals(r.next("mean"), n_, 0.0, 1.0);
        auto p_c = r.reals(r.next("path_c"), n_, -1e12, 1e12);
        auto p_sigma = r.reals(r.next("path_sigma"), n_, -1e12, 1e12);
        auto covariance = r.reals(r.next("covariance"), n_ * n_, -1e12, 1e12);
        for (std::size_t i = 0; i < n_; ++i) {
            if (!(covariance[i * n_ + i] > 0)) throw r.error("a covariance whose diagonal is not positive");
            for (std::size_t j = 0; j < i; ++j)
                if (covariance[i * n_ + j] != covariance[j * n_ + i]) throw r.error("a covariance that is not symmetric");
        }
        auto rng = r.engine(r.next("rng"));
        auto stopped = r.text("stopped");
        r.end();
        if (std::isfinite(best_f) && best_f != members[0].second)
            throw std::runtime_error("the saved best point's likelihood is not the state's");
        generation_ = generation, sigma_ = sigma, best_f_ = best_f;
        mean_ = std::move(mean), p_c_ = std::move(p_c), p_sigma_ = std::move(p_sigma);
        covariance_ = std::move(covariance), rng_ = rng, stopped_by_ = std::move(stopped);
        best_ = members[0].first;
    }

private:
    /// Stops the search once its spread is below smallest_step in every coordinate; true while it goes on.
    bool check_step() {
        double widest = 0;
        for (std::size_t i = 0; i < n_; ++i) widest = std::max(widest, covariance_[i * n_ + i]);
        if (sigma_ * std::sqrt(widest) < smallest_step) {
            stopped_by_ = "the search's spread fell below 1e-12 of the box in every parameter";
            return false;
        }
        return true;
    }

    std::size_t n_;
    std::size_t lambda_, mu_;
    std::vector<double> weights_;
    double mu_eff_ = 0, c_c_ = 0, c_sigma_ = 0, c_1_ = 0, c_mu_ = 0, d_sigma_ = 0, chi_n_ = 0;
    std::mt19937_64 rng_;
    UnitEvaluate evaluate_;
    std::vector<double> mean_, best_;
    double best_f_ = minus_infinity;
    double sigma_ = cma_initial_step;
    std::vector<double> covariance_, p_c_, p_sigma_;
    unsigned generation_ = 0;
};

}  // namespace

std::unique_ptr<GenerationSearch> make_cma_search(std::size_t dimension, unsigned population, unsigned seed,
                                                  UnitEvaluate evaluate) {
    if (dimension == 0) throw std::invalid_argument("a search needs at least one parameter");
    if (population < 4)
        throw std::invalid_argument("cmaes-batch needs a population of at least 4 (its update takes the best half)");
    return std::make_unique<BatchedCma>(dimension, population, seed, std::move(evaluate));
}

}  // namespace mwsep::fit
