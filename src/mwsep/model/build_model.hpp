/// @file build_model.hpp
/// @brief Checks every value of a parsed work unit (spec section 7) and builds the immutable Model.
#pragma once

#include "mwsep/model/work_unit.hpp"

namespace mwsep::model {

/// Validates @p ap and returns the model the integrators use. Rejects, with the file, line and key:
/// q <= 0, r0 <= 0, |sigma| < 1e-4, convolve < 1, steps <= 0, max <= min, nu outside [-90, 90],
/// aux_bg_profile or sgr_coordinates outside {0, 1}, aux_bg_profile = 1 with fewer than 7 background
/// parameters, optimize flags other than 0/1, and Sagittarius coordinates (not supported).
Model build_model(const AstronomyParameters& ap, RBinning r_binning = RBinning::magnitude);

/// Number of mixture components of @p m: the background plus one per stream.
inline int component_count(const Model& m) { return 1 + static_cast<int>(m.streams.size()); }

}  // namespace mwsep::model
