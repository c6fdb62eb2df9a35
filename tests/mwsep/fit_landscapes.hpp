// Likelihood landscapes of known shape for the fit's tests (test_fit.cpp, test_fit_search.cpp): a quadratic whose
// maximum and Hessian are known, a rugged one with many local maxima, and the box they are searched in.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/space.hpp"

namespace fit_landscapes {

/// L(x) = -1.5 - 1/2 (x - m)^T A (x - m): a likelihood whose Hessian is -A and whose maximum is m (-1.5);
/// records the size of every batch.
class Quadratic : public mwsep::fit::BatchEvaluator {
public:
    Quadratic(std::vector<double> m, std::vector<double> a) : m_(std::move(m)), a_(std::move(a)) {}
    std::vector<double> evaluate(const mwsep::fit::Batch& batch) override {
        std::vector<double> out;
        const std::size_t n = m_.size();
        for (const auto& x : batch) {
            double q = 0;
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < n; ++j) q += (x[i] - m_[i]) * a_[i * n + j] * (x[j] - m_[j]);
            out.push_back(-1.5 - 0.5 * q);
        }
        batches.push_back(batch.size());
        return out;
    }
    std::string description() const override { return "quadratic"; }
    std::vector<std::size_t> batches;

private:
    std::vector<double> m_, a_;
};

/// The maximum and the matrix (symmetric, positive definite) of the tests' quadratic.
inline const std::vector<double> centre = {0.3, -1.2, 2.0};
inline const std::vector<double> matrix = {4.0, 1.0, 0.5, 1.0, 3.0, -0.25, 0.5, -0.25, 2.0};

/// A rugged objective (a Rastrigin-like landscape): many local maxima, so a population's best after a generation
/// is often worse than the best point the search has seen (a resume must restore every bit of the search's state).
class Rugged : public mwsep::fit::BatchEvaluator {
public:
    std::vector<double> evaluate(const mwsep::fit::Batch& batch) override {
        std::vector<double> out;
        for (const auto& x : batch) {
            double v = 0;
            for (double xi : x) v += xi * xi - 2.0 * std::cos(6.0 * xi);
            out.push_back(-v);
        }
        return out;
    }
    std::string description() const override { return "rugged"; }
};

/// The three-parameter box the landscapes are searched in, its start away from the quadratic's maximum.
inline mwsep::fit::FitSpace box3() {
    mwsep::fit::FitSpace s;
    s.names = {"a", "b", "c"};
    s.lower = {-2, -3, 0};
    s.upper = {2, 1, 4};
    s.start = {1.5, 0.5, 3.5};
    return s;
}

/// The box the tests of stopping and resuming search the rugged landscape in: +- 3 in each of three parameters,
/// the start near a corner.
inline mwsep::fit::FitSpace resume_box() {
    mwsep::fit::FitSpace s;
    s.names = {"a", "b", "c"};
    s.lower = {-3, -3, -3};
    s.upper = {3, 3, 3};
    s.start = {2.2, -1.7, 2.9};
    return s;
}

}  // namespace fit_landscapes
