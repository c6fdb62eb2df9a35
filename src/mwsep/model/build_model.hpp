/// @file build_model.hpp
/// @brief Checks every value of a parsed work unit (spec section 7) and builds the immutable Model.
#pragma once

#include "mwsep/model/work_unit.hpp"

namespace mwsep::model {

/// The ranges build_model accepts beyond the spec's own checks: outside them a density underflows or
/// overflows somewhere in a wedge, so that an integral is 0 or not finite (found only after the whole
/// integration otherwise). Wide around every work unit of the project (q 0.57, r0 12 kpc, alpha 1, delta 1,
/// stream distances below 60 kpc, g 16 to 23).
namespace limits {
inline constexpr double q_min = 1e-3;   ///< background flattening q: least accepted
inline constexpr double q_max = 1e3;    ///< background flattening q: largest accepted
inline constexpr double r0_min = 1e-6;  ///< background core radius r0 [kpc]: least accepted
inline constexpr double r0_max = 1e4;   ///< background core radius r0 [kpc]: largest accepted
inline constexpr double exponent_max = 10;                    ///< |alpha| and |delta|
inline constexpr double stream_length_max = 1e4;              ///< |r| and |sigma| of a stream [kpc]
inline constexpr double angle_max = 1e4;                      ///< |mu| [deg], |theta| and |phi| [rad] of a stream
inline constexpr double g_min = -10;    ///< the r axes, in g magnitudes: least accepted
inline constexpr double g_max = 60;     ///< the r axes, in g magnitudes: largest accepted
}  // namespace limits

/// Validates @p ap and returns the model the integrators use. Rejects, with the file, line and key:
/// q <= 0, r0 <= 0, |sigma| < 1e-4, convolve < 1, steps <= 0, max <= min, nu outside [-90, 90],
/// aux_bg_profile or sgr_coordinates outside {0, 1}, aux_bg_profile = 1 with fewer than 7 background
/// parameters, optimize flags other than 0/1, and Sagittarius coordinates (not supported); and values outside
/// the model's limits (see limits), a non-finite weight, a mu range wider than 360 degrees and a cut that
/// covers the whole main area.
Model build_model(const AstronomyParameters& ap, RBinning r_binning = RBinning::magnitude);

/// Number of mixture components of @p m: the background plus one per stream.
inline int component_count(const Model& m) { return 1 + static_cast<int>(m.streams.size()); }

}  // namespace mwsep::model
