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

/// Eigenvalues (ascending) and unit eigenvectors of a symmetric matrix.
struct SymmetricEigen {
    std::vector<double> values;                ///< ascending
    std::vector<std::vector<double>> vectors;  ///< vectors[k] belongs to values[k]
};

/// The eigen-decomposition of the symmetric @p a (row-major, n x n) by cyclic Jacobi rotations, converged
/// to rounding; for the small matrices of a fit (tens of parameters).
SymmetricEigen symmetric_eigen(const std::vector<double>& a, std::size_t n);

/// What the Hessian says about a fitted vector.
struct Uncertainty {
    std::vector<double> hessian;     ///< d^2 L / dx_i dx_j of the mean log10 likelihood L (row-major)
    std::vector<double> covariance;  ///< (-N ln(10) H)^-1: the inverse Fisher information of ln likelihood
    std::vector<double> sigma;       ///< sqrt of the covariance's diagonal; NaN when it is not positive definite
    bool positive_definite = false;  ///< whether -H was positive definite (a maximum)
    std::vector<double> steps;       ///< the finite-difference step of every parameter
    /// Eigenvalues (ascending) of the Fisher information in units of the steps, D F D with D = diag(steps):
    /// near 1 along a parameter that the data pin down to one step; zero or negative along a direction in
    /// which the point is no maximum.
    std::vector<double> scaled_fisher_eigenvalues;
    std::vector<double> weakest_direction;  ///< the unit eigenvector of the smallest of them, in step units
    /// Every unit eigenvector, in the order of scaled_fisher_eigenvalues (in step units, like weakest_direction).
    std::vector<std::vector<double>> scaled_fisher_eigenvectors;
    std::size_t evaluations = 0;     ///< candidates evaluated (both stencils)
};

/// The finite-difference steps for the Hessian at @p x: from a first diagonal stencil with steps
/// @p step_fraction x @p width_i, each parameter's curvature gives its own 1-sigma width for @p stars
/// stars, and that becomes its step (within [1e-7, 0.1] of its box). A step of one sigma changes ln
/// likelihood by about 1/2 at a maximum: large against rounding (about 1e-15 of L), small enough for
/// the quadratic approximation. Adds the 1 + 2n evaluations to @p evaluations.
std::vector<double> steps_of_one_sigma(BatchEvaluator& evaluator, const std::vector<double>& x,
                                       const std::vector<double>& width, double step_fraction, std::size_t stars,
                                       std::size_t& evaluations);

/// The uncertainties of @p x for a catalogue of @p stars stars: steps from steps_of_one_sigma() (first
/// step @p step_fraction x the width of parameter i's box, @p width_i), then the full stencil with them;
/// two batches on @p evaluator, 2 + 2n + 2n^2 evaluations for n parameters.
Uncertainty uncertainty_at(BatchEvaluator& evaluator, const std::vector<double>& x, const std::vector<double>& width,
                           double step_fraction, std::size_t stars);

}  // namespace mwsep::fit
