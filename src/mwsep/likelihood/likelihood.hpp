/// @file likelihood.hpp
/// @brief Per-star mixture probability, log10 with the zero penalty, and the diagnostics (spec 4.2-4.6).
#pragma once

#include <vector>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/result.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::cpu {

/// Mixture weights E_c = exp(epsilon_c) and their sum, accumulated in the original order.
struct MixtureWeights {
    double background;            ///< E_bg = exp(epsilon_bg)
    std::vector<double> streams;  ///< E_s = exp(epsilon_s), in stream order
    double sum;                   ///< Sigma_E = E_bg + E_0 + E_1 + ..., added in that order
};
/// The weights of @p m as the 2009 CPU formed them (spec 4.2), exp evaluated afresh for each term of the sum.
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

/// One star's term of a diagnostic likelihood (spec 4.6): log10(u / Sigma_E) or -241 when u < 1e-15.
double diagnostic_term(double density, double integral, double weight, double weight_sum);

}  // namespace mwsep::cpu
