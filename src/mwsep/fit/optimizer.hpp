/// @file optimizer.hpp
/// @brief The fit: a global search by a pagmo2 algorithm, one generation at a time, each generation's
/// candidates evaluated as one batch where the algorithm allows it; then a local polish by NLopt's
/// BOBYQA from the global search's best and from the start, the better kept; checkpoints between generations.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/space.hpp"

namespace mwsep::fit {

/// The global algorithms: pagmo's generational particle swarm (pso_gen, a whole generation per batch),
/// differential evolution (de) and CMA-ES (cmaes), the last two one candidate per batch; this project's CMA-ES
/// with a whole generation per batch (cmaes-batch, fit/cma_search.hpp); and the thesis's search methods
/// (fit/thesis_search.hpp): conjugate gradient descent (cgd), gradient ascent with a randomized line search (line)
/// and the asynchronous genetic search (async-ga).
inline const std::vector<std::string> algorithm_names = {"pso", "de", "cmaes", "cmaes-batch", "cgd", "line", "async-ga"};

/// Whether @p algorithm is one of the project's own searches (fit/generation_search.hpp), which keep their state in
/// their own text: cmaes-batch and the thesis's methods; the others are pagmo's.
bool is_own_search(const std::string& algorithm);

/// The algorithms a checkpointed fit can resume, comma-separated: every one of algorithm_names but pso, whose
/// swarm's memory pagmo leaves out of its saved state.
std::string resumable_algorithms();

/// How to fit.
struct FitOptions {
    std::string algorithm = "pso";  ///< one of algorithm_names
    unsigned population = 24;       ///< candidates per generation
    unsigned generations = 30;      ///< generations of the global search
    unsigned seed = 1;              ///< the same seed gives the same trajectory, however the batches are split
    unsigned polish_evaluations = 300;  ///< most evaluations of each local polish (0: no polish)
    bool polish_from_start = true;  ///< polish from the start vector too, and keep the better of the two polishes
    /// Run the two polishes side by side, their evaluations gathered into batches of two (the same result as
    /// one after the other, in less time where a batch of two costs less than two of one)
    bool polishes_together = true;
    double hessian_step = 1e-3;     ///< finite-difference step, as a fraction of each parameter's box
    bool uncertainties = true;      ///< compute the Hessian's uncertainties at the optimum
    double gradient_step = 1e-4;    ///< cgd, line: central-difference step, as a fraction of each box
    unsigned in_flight = 0;         ///< async-ga: evaluations in flight per round (0: the population)
    double late_fraction = 0;       ///< async-ga: simulated share of results that arrive late
    double lost_fraction = 0;       ///< async-ga: simulated share of results that never arrive
    unsigned max_delay = 3;         ///< async-ga: rounds a late result can be late (a lost one holds its slot one more)
    std::string checkpoint;         ///< written after every generation (atomically); empty: none. Not pso
    bool resume = false;            ///< continue from @ref checkpoint if it exists
    unsigned stop_after = 0;        ///< stop after this many generations of this run (0: none), for tests of resuming
    /// Asked after every generation: true stops the fit there as stop_after does (a time limit); empty: never.
    std::function<bool()> stop_requested;
    /// What else the checkpoint belongs to (key, value): the inputs' contents, the binning, the evaluator. A
    /// checkpoint is resumed only by a fit with the same items and the same search settings and space.
    std::vector<std::pair<std::string, std::string>> identity;
};

/// One generation of the global search.
struct GenerationRecord {
    unsigned generation = 0;     ///< 1-based; 0 is the initial population
    long long evaluations = 0;   ///< candidates evaluated so far (all phases)
    double best = 0;             ///< best likelihood L found so far
    double seconds = 0;          ///< wall time since the fit started (this run)
    /// The evaluator's own account of this generation's evaluations (BatchEvaluator::phase_seconds(): the
    /// growth of its sums since the previous record), summed over its devices [s]: host preparation,
    /// integral kernels, likelihood kernel, whole evaluations. NaN where the evaluator measures none (the
    /// CPU) and for a resumed fit's earlier generations (the checkpoint keeps no timings).
    double prepare_seconds = std::numeric_limits<double>::quiet_NaN();
    double integral_seconds = std::numeric_limits<double>::quiet_NaN();    ///< see prepare_seconds
    double likelihood_seconds = std::numeric_limits<double>::quiet_NaN();  ///< see prepare_seconds
    double evaluate_seconds = std::numeric_limits<double>::quiet_NaN();    ///< see prepare_seconds
};

/// One local polish: where it began and what it reached.
struct PolishRecord {
    std::string from;            ///< "global best" or "start"
    double begin = 0;            ///< L where it began (NaN when that point was not evaluated before)
    double likelihood = 0;       ///< the best L it reached
    long long evaluations = 0;   ///< evaluations it made
    std::string stopped_by;      ///< "tolerance", "evaluation limit" or "failure" (NLopt's outcome)
};

/// The outcome of a fit.
struct FitResult {
    std::vector<double> best;              ///< the best vector after the polish
    double likelihood = 0;                 ///< its likelihood L
    double global_likelihood = 0;          ///< the best L of the global search, before the polish
    std::vector<double> sigma;             ///< 1-sigma uncertainties from the Hessian (NaN: none)
    std::vector<double> covariance;        ///< their covariance (row-major; empty: none)
    bool positive_definite = false;        ///< whether the Hessian showed a maximum
    std::vector<double> scaled_fisher_eigenvalues;  ///< see Uncertainty (empty: no Hessian)
    std::vector<double> weakest_direction;          ///< see Uncertainty
    std::vector<std::vector<double>> scaled_fisher_eigenvectors;  ///< see Uncertainty
    long long evaluations = 0;             ///< every candidate evaluated (global, polish, Hessian)
    long long global_evaluations = 0;      ///< of which in the global search
    long long polish_evaluations = 0;      ///< of which in the polishes
    std::vector<PolishRecord> polishes;    ///< each polish, in the order they ran
    long long hessian_evaluations = 0;     ///< of which for the Hessian
    long long invalid_evaluations = 0;     ///< candidates without a finite likelihood
    unsigned generations = 0;              ///< generations completed (all runs of a resumed fit)
    /// Why the global search ended before its last generation (a thesis search that converged); empty otherwise.
    std::string stopped_by;
    unsigned resumed_from = 0;             ///< the generation a resumed run started from (0: a fresh start)
    bool completed = true;                 ///< false when stopped early (FitOptions::stop_after, stop_requested)
    double seconds = 0;                    ///< wall time of this run
    double global_seconds = 0;             ///< of which the global search
    double polish_seconds = 0;             ///< of which the polish
    double hessian_seconds = 0;            ///< of which the Hessian
    double evaluation_seconds = 0;         ///< time inside the evaluator (all phases)
    std::vector<std::pair<std::string, double>> phase_seconds;  ///< the evaluator's own account (GPU: per phase)
    /// The integral kernels' seconds within the Hessian (the evaluator's "integral" phase; NaN where it
    /// does not measure phases or no Hessian was computed)
    double hessian_integral_seconds = std::numeric_limits<double>::quiet_NaN();
    std::optional<IntegralWork> integral_work;          ///< how every evaluation's integrals were obtained
    std::optional<IntegralWork> hessian_integral_work;  ///< of which the Hessian's
    std::vector<GenerationRecord> history; ///< one record per generation, a resumed fit's earlier ones included
};

/// Fits @p space with @p evaluator (the start vector is one of the initial candidates; @p stars, the
/// catalogue's size, scales the Hessian to the uncertainties); @p on_generation is called after each generation (progress).
/// Throws std::invalid_argument for options the algorithm cannot take, std::runtime_error for a
/// checkpoint that belongs to another fit.
FitResult run_fit(const FitSpace& space, BatchEvaluator& evaluator, const FitOptions& options, std::size_t stars,
                  const std::function<void(const GenerationRecord&)>& on_generation = {});

}  // namespace mwsep::fit
