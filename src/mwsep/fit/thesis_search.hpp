/// @file thesis_search.hpp
/// @brief The search methods MilkyWay\@Home used (thesis chapter 1 and its references [5]-[8]), as global
/// searches of `mwsep fit` beside pagmo2's: conjugate gradient descent with central-difference gradients and a
/// bracketing line search (`cgd`, Cole et al. 2008), gradient ascent with the server's randomized line search
/// (`line`: random points along the gradient, a parabola fitted to them by least squares), and the server's
/// asynchronous genetic search (`async-ga`, Desell et al. 2008-2009: a population of the best results, updated as
/// results arrive while others are still being computed, with simulated late and lost results).
///
/// They work in the fit's unit box (every parameter scaled to [0, 1] by its bounds) and maximise the likelihood
/// L through a batch evaluator: a gradient's 2n points, a line's random points and a round of the genetic search
/// are one batch each (spread over every GPU or MPI rank); the bracketing line search is sequential, one point at
/// a time, as the thesis-era code was. Every random choice comes from one generator seeded by `--seed`, and a value
/// never depends on how a batch was split, so the same seed gives the same search on any number of devices.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "mwsep/fit/generation_search.hpp"

namespace mwsep::fit {

/// The names of the thesis's methods as `mwsep fit --algorithm` takes them.
inline const std::vector<std::string> thesis_algorithm_names = {"cgd", "line", "async-ga"};

/// Whether @p algorithm is one of thesis_algorithm_names.
bool is_thesis_algorithm(const std::string& algorithm);

/// How a thesis search runs.
struct ThesisSettings {
    std::string algorithm;          ///< one of thesis_algorithm_names
    unsigned population = 24;       ///< async-ga: results kept; line: random points per line
    unsigned seed = 1;              ///< every random choice
    double gradient_step = 1e-4;    ///< cgd, line: central-difference step in the unit box
    unsigned in_flight = 0;         ///< async-ga: evaluations in flight per round (0: the population)
    double late_fraction = 0;       ///< async-ga: share of results that arrive late
    double lost_fraction = 0;       ///< async-ga: share of results that never arrive
    unsigned max_delay = 3;         ///< async-ga: a late result arrives 1 to max_delay rounds late; a lost one
                                    ///< frees its slot after max_delay + 1 rounds
};

/// The evaluations one generation of @p s takes on a space of @p dimension parameters (for the fit's estimate
/// before it starts; cgd's line search varies, so its figure is typical rather than exact).
double thesis_evaluations_per_generation(const ThesisSettings& s, std::size_t dimension);

/// The search of @p settings on @p dimension parameters, evaluating through @p evaluate. Throws
/// std::invalid_argument for settings it cannot take (a population below 3 for async-ga, below 3 points for line,
/// a gradient step outside (0, 0.1], fractions outside [0, 1] or summing above 1, max_delay 0 or above 1000).
std::unique_ptr<GenerationSearch> make_thesis_search(const ThesisSettings& settings, std::size_t dimension,
                                                 UnitEvaluate evaluate);

}  // namespace mwsep::fit
