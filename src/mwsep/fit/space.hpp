/// @file space.hpp
/// @brief The parameter space of a fit: the parameters a work unit marks as optimised, in the order of
/// the search vector (spec 1.2), with their names and the work unit's search bounds.
#pragma once

#include <string>
#include <vector>

#include "mwsep/model/work_unit.hpp"

namespace mwsep::fit {

/// The optimised parameters of one work unit and their box.
struct FitSpace {
    std::vector<std::string> names;  ///< e.g. "q", "stream1.mu", in search-vector order
    std::vector<double> lower;       ///< lower bound of each parameter (the work unit's *_min)
    std::vector<double> upper;       ///< upper bound of each parameter (the work unit's *_max)
    std::vector<double> start;       ///< the work unit's current values (or the search vector applied to it)
    /// Number of parameters.
    std::size_t size() const { return names.size(); }
};

/// The space of @p ap. Throws model::InputError naming the work unit and key when no parameter is
/// optimised, or when a bound pair is empty (min >= max) or, unless @p allow_outside, does not contain
/// the current value (an angle given outside its bounds, say; a narrowed() box is then centred on it).
FitSpace fit_space(const model::AstronomyParameters& ap, bool allow_outside = false);

/// Narrows @p space to start +- @p fraction of each parameter's range, clipped to the bounds where the
/// start lies within them: a fit from a perturbed start searches this box. Throws std::invalid_argument unless 0 < fraction <= 1.
FitSpace narrowed(const FitSpace& space, double fraction);

/// @p ap with the optimised parameters set to @p x (search-vector order).
model::AstronomyParameters with_parameters(const model::AstronomyParameters& ap, const std::vector<double>& x);

}  // namespace mwsep::fit
