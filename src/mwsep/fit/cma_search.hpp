/// @file cma_search.hpp
/// @brief `cmaes-batch`: a CMA-ES of this project whose every generation is one batch for the evaluator, so that a
/// generation's candidates are spread over every GPU or MPI rank and, on one GPU, each candidate's host preparation
/// overlaps the kernels of the one before it. pagmo's `cmaes` hands the evaluator one candidate at a time.
///
/// The algorithm is the (mu/mu_w, lambda) evolution strategy with covariance matrix adaptation and cumulative
/// step-size control, with the default strategy parameters of Hansen's tutorial ("The CMA Evolution Strategy: A
/// Tutorial", arXiv:1604.00772, table 1, positive weights only). It is not pagmo's implementation: its random
/// numbers, its start (the start vector as the mean, no random initial population) and its handling of the box
/// differ, so a `cmaes-batch` fit takes another path than a `cmaes` fit with the same seed. It works in the unit
/// box: a sampled point outside is moved onto the nearest face before it is evaluated, and the moved point is the
/// one the update learns from. Every random number comes from one generator seeded by `--seed`, and a candidate's
/// value never depends on how a batch was split, so the same seed gives the same search on any number of devices.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "mwsep/fit/generation_search.hpp"

namespace mwsep::fit {

/// The name `mwsep fit --algorithm` takes for this search.
inline constexpr const char* cma_batch_name = "cmaes-batch";

/// CMA-ES's initial step in the unit box, for both `cmaes` (pagmo's) and `cmaes-batch`: the search starts with a
/// spread of 0.3 of every box around the mean, wide enough to cross a box of +- 5 % of a range around a start 1 %
/// away from the optimum.
inline constexpr double cma_initial_step = 0.3;

/// The batched CMA-ES on @p dimension parameters with @p population candidates a generation, its random numbers
/// from @p seed, evaluating through @p evaluate. Throws std::invalid_argument for a dimension of 0 or a population
/// below 4 (the update needs at least two parents, half the population).
std::unique_ptr<GenerationSearch> make_cma_search(std::size_t dimension, unsigned population, unsigned seed,
                                                  UnitEvaluate evaluate);

}  // namespace mwsep::fit
