/// @file hessian.hpp
/// @brief Uncertainties of a fitted vector from the numerical Hessian of the likelihood at the optimum.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "mwsep/fit/evaluator.hpp"

namespace mwsep::fit {

/// The central-difference stencil around @p x with steps @p h: x itself, x +- h_i e_i for every i, and
/// x + s h_i e_i + t h_j e_j (s, t = +-1) for every i < j, in that order; one batch for the evaluator.
Batch hessian_stencil(const std::vector<double>& x, const std::vector<double>& h);

/// The symmetric Hessian (row-major, n x n) from the stencil's values @p f (in hessian_stencil's order).
std::vector<double> hessian_from_stencil(const std::vector<double>& f, const std::vector<double>& h);

/// The inverse of the symmetric positive definite @p a (row-major, n x n) by Cholesky factorisation;
/// empty if @p a is not positive definite.
std::vector<double> inverse_spd(const std::vector<double>& a, std::size_t n);

/// What the Hessian says about a fitted vector.
struct Uncertainty {
    std::vector<double> hessian;     ///< d^2 L / dx_i dx_j of the mean log10 likelihood L (row-major)
    std::vector<double> covariance;  ///< (-N ln(10) H)^-1: the inverse Fisher information of ln likelihood
    std::vector<double> sigma;       ///< sqrt of the covariance's diagonal; NaN when it is not positive definite
    bool positive_definite = false;  ///< whether -H was positive definite (a maximum)
    std::size_t evaluations = 0;     ///< candidates evaluated for the stencil
};

/// The uncertainties of @p x for a catalogue of @p stars stars, with step @p h_i = @p step_fraction x
/// (the width of parameter i's box, @p width_i), from one batch on @p evaluator.
Uncertainty uncertainty_at(BatchEvaluator& evaluator, const std::vector<double>& x, const std::vector<double>& width,
                           double step_fraction, std::size_t stars);

}  // namespace mwsep::fit
