/// @file generation_search.hpp
/// @brief What the fit's own global searches share (the thesis's methods and the batched CMA-ES): they work in the
/// unit box (every parameter scaled to [0, 1] by its bounds), evaluate through a batch function and save their
/// whole state as text between generations, so that a stopped fit resumes on the same trajectory.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mwsep/fit/evaluator.hpp"

namespace mwsep::fit {

/// Evaluates points of the unit box: the likelihood L of each, NaN where it has none.
using UnitEvaluate = std::function<std::vector<double>(const Batch&)>;

/// A search the fit drives one generation at a time, with its own saved state: the thesis's methods
/// (fit/thesis_search.hpp; a generation is an iteration of cgd or line, a round of async-ga) and the batched CMA-ES
/// (fit/cma_search.hpp; a generation is one batch of the population).
class GenerationSearch {
public:
    virtual ~GenerationSearch() = default;
    /// Generation 0: evaluates the start @p start (unit box; its likelihood @p start_likelihood is known and not
    /// evaluated again when finite) and, for async-ga, the first round.
    virtual void begin(const std::vector<double>& start, double start_likelihood) = 0;
    /// One generation. Returns false when the search cannot go on (stopped_by() says why); the best point stays.
    virtual bool step() = 0;
    /// The best point so far (unit box) and its likelihood.
    virtual const std::vector<double>& best() const = 0;
    virtual double best_likelihood() const = 0;  ///< see best()
    /// The points the checkpoint keeps as the population (unit box) with their likelihoods: the current point
    /// (cgd, line), the population (async-ga) or the best point (cmaes-batch).
    virtual std::vector<std::pair<std::vector<double>, double>> members() const = 0;
    /// Everything else the search needs to continue exactly: its own text (the checkpoint's algorithm state).
    virtual std::string save() const = 0;
    /// Restores the state save() wrote, with @p members as members() gave them. Throws std::runtime_error
    /// saying what is wrong for a state this search cannot have written (every count bounded, every value checked).
    virtual void load(const std::string& state, const std::vector<std::pair<std::vector<double>, double>>& members) = 0;
    /// Why the search stopped before its last generation; empty while it can go on.
    const std::string& stopped_by() const { return stopped_by_; }

protected:
    std::string stopped_by_;  ///< set by a search that cannot go on, saying why
};

}  // namespace mwsep::fit
