/// @file mixture.hpp
/// @brief One star's mixture terms (spec 4.2): the one place where a star's component densities, the
/// components' integrals and the mixture weights combine. The likelihood takes their sum (the star's mixture
/// probability, up to the common factor 1 / Sigma_E); the separation takes each term's share of the sum (the
/// star's probability of belonging to that component). Host and device.
#pragma once

#include "mwsep/math/hd.hpp"

namespace mwsep::likelihood {

// [mixture-terms-begin]
/// The mixture terms of one star, background first: terms[c] = (densities[c] / integrals[c]) x weights[c]
/// for c = 0 .. components - 1, with the weights E_c (shifted or not: a common factor cancels from every
/// share). Returns their sum, added in component order.
template <class Real>
MWSEP_HD Real mixture_terms(int components, const Real* densities, const Real* integrals, const Real* weights,
                            Real* terms) {
    Real total = Real(0);
    for (int c = 0; c < components; ++c) {
        terms[c] = (densities[c] / integrals[c]) * weights[c];
        total += terms[c];
    }
    return total;
}

/// The probability of each component for a star with mixture terms @p terms and their sum @p total: its
/// share terms[c] / total (Bayes' rule with the fitted model as the prior and the densities as the
/// likelihoods). A star whose terms are all zero belongs to no component the model can tell: every share is
/// then 0 (and the caller says so), never NaN.
template <class Real>
MWSEP_HD void membership(int components, const Real* terms, Real total, Real* probability) {
    for (int c = 0; c < components; ++c) probability[c] = total > Real(0) ? terms[c] / total : Real(0);
}
// [mixture-terms-end]

}  // namespace mwsep::likelihood
