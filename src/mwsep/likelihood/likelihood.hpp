/// @file likelihood.hpp
/// @brief Per-star mixture probability, log10 with the zero penalty, and the diagnostics (spec 4.2-4.6).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/result.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::likelihood {

/// Mixture weights E_c = exp(epsilon_c - shift) and their sum, with shift the largest epsilon_c (log-sum-exp):
/// the mixture depends only on differences of the epsilons, so the common factor exp(-shift) cancels from
/// every ratio E_c / Sigma_E, and no weight overflows or underflows as a whole (the largest is exactly 1).
struct MixtureWeights {
    double shift;                 ///< the largest epsilon, taken out of every weight
    double background;            ///< E_bg = exp(epsilon_bg - shift)
    std::vector<double> streams;  ///< E_s = exp(epsilon_s - shift), in stream order
    double sum;                   ///< Sigma_E = E_bg + E_0 + E_1 + ..., added in that order (between 1 and 1 + S)
};
/// The weights of @p m (spec 4.2), shifted by the largest epsilon. A NaN or infinite epsilon makes every
/// weight NaN, which the likelihood then refuses as a non-finite star term (spec 7.1).
MixtureWeights mixture_weights(const model::Model& m);

/// Checks the integrals before they divide anything: each must be finite and positive (spec 7.1).
/// Throws std::runtime_error with every integral printed otherwise.
void check_integrals(const model::Integrals& integrals);

/// The convolved densities P_c of one star at its own distance (spec 4.1), 1 + S values.
void star_densities(const geometry::IntegrationSetup& s, double l_deg, double b_deg, double r_kpc, double* out);

/// log10 of the mixture probability of one star from its densities, in the original CPU order;
/// returns the -238 penalty (and sets @p zero) when the probability is exactly 0.
double star_log_probability(const MixtureWeights& w, const model::Integrals& integrals, const double* densities,
                            bool& zero);

/// One star's probability of belonging to each component, background first (1 + S values in @p probability):
/// its mixture terms (mixture_terms(), the very terms whose sum star_log_probability() takes) over their
/// sum. Returns false, with every probability 0, for a star of mixture probability exactly 0 (the likelihood's
/// penalty star): no component explains it.
bool star_membership(const MixtureWeights& w, const model::Integrals& integrals, const double* densities,
                     double* probability);

/// One star's term of a diagnostic likelihood (spec 4.6): log10(u / Sigma_E), or -241 when the unshifted
/// u = (density / integral) exp(epsilon) is below 1e-15; @p weight and @p w are shifted (MixtureWeights),
/// so the threshold is compared in logarithms, where exp(shift) cannot overflow.
double diagnostic_term(double density, double integral, double weight, const MixtureWeights& w);

/// A plain running sum, for the integrators that add in the original order without compensation.
class PlainSum {
public:
    /// Adds @p v.
    void add(double v) { sum_ += v; }
    /// The sum so far.
    double value() const { return sum_; }

private:
    double sum_ = 0;
};

/// The likelihood and its diagnostics from per-star results, added in star order (spec 4.3-4.6): every
/// backend computes the per-star values its own way and assembles them here. @p Sum is PlainSum (the
/// original order and rounding) or NeumaierSum (compensated).
template <class Sum>
class LikelihoodAssembly {
public:
    /// Prepares the sums for the streams of @p integrals, with the mixture weights @p w.
    LikelihoodAssembly(const MixtureWeights& w, const model::Integrals& integrals)
        : weights_(w), integrals_(integrals), stream_sums_(integrals.streams.size()) {}

    /// Adds one star: @p log_probability is log10 of its mixture probability (or the penalty, then
    /// @p zero is true), @p densities its 1 + S convolved densities, or nullptr for the likelihood alone
    /// (then no star may bring densities, and result() has no diagnostic likelihoods).
    void add_star(double log_probability, bool zero, const double* densities) {
        if (!std::isfinite(log_probability)) {
            // Counted rather than thrown at once, so that the message says how many stars are affected.
            if (non_finite_stars_ == 0) first_non_finite_ = stars_;
            ++non_finite_stars_;
        }
        sum_.add(log_probability);
        zero_stars_ += zero;
        ++stars_;
        if (!densities) return;
        ++diagnosed_stars_;
        background_sum_.add(diagnostic_term(densities[0], integrals_.background, weights_.background, weights_));
        for (std::size_t s = 0; s < stream_sums_.size(); ++s)
            stream_sums_[s].add(diagnostic_term(densities[1 + s], integrals_.streams[s], weights_.streams[s], weights_));
    }

    /// Stars added so far whose log-probability is NaN or infinite (spec 7.1).
    std::size_t non_finite_stars() const { return non_finite_stars_; }

    /// Throws std::runtime_error naming how many stars (and the first of them) have a non-finite
    /// log-probability; a likelihood with such a term is NaN or infinite and must not be reported (spec 7.1).
    void check_finite() const {
        if (non_finite_stars_ == 0) return;
        throw std::runtime_error(std::to_string(non_finite_stars_) + " of " + std::to_string(stars_) +
                                 " stars have a non-finite log-probability (the first is star " +
                                 std::to_string(first_non_finite_) +
                                 "): a mixture weight, a stream distance or a star distance out of range");
    }

    /// The means over the stars added so far; without densities, the likelihood alone (background_likelihood
    /// NaN, stream_only empty).
    model::Likelihood result() const {
        model::Likelihood out;
        const double n = static_cast<double>(stars_);
        out.likelihood = sum_.value() / n;
        out.zero_probability_stars = zero_stars_;
        if (diagnosed_stars_ == 0 && stars_ > 0) {
            out.background_likelihood = std::numeric_limits<double>::quiet_NaN();
            return out;
        }
        out.background_likelihood = background_sum_.value() / n;
        for (const auto& s : stream_sums_) out.stream_only.push_back(s.value() / n);
        return out;
    }

private:
    const MixtureWeights& weights_;
    const model::Integrals& integrals_;
    Sum sum_;
    Sum background_sum_;
    std::vector<Sum> stream_sums_;
    long long zero_stars_ = 0;
    std::size_t stars_ = 0;
    std::size_t diagnosed_stars_ = 0;  // stars added with their densities
    std::size_t non_finite_stars_ = 0;
    std::size_t first_non_finite_ = 0;
};

}  // namespace mwsep::likelihood
