/// @file constants.hpp
/// @brief Fixed physical and numerical constants of the 2009-2010 separation model (spec section 2.1).
#pragma once

namespace mwsep::constants {

/// pi to the digits of M_PI, which the 2009 build used (spec 2.1).
inline constexpr double pi = 3.14159265358979323846;
/// Degrees per radian; the original code divides by this to convert degrees to radians.
inline constexpr double deg = 180.0 / pi;
/// Standard deviation of the F-turnoff absolute magnitude [mag].
inline constexpr double sigma_mag = 0.6;
/// Half-width of the magnitude convolution interval: 3 sigma [mag].
inline constexpr double xr = 3.0 * sigma_mag;
/// Distance from the Sun to the Galactic centre [kpc].
inline constexpr double sun_r = 8.5;
/// Mean absolute magnitude of F-turnoff stars.
inline constexpr double abs_mag = 4.2;
/// Detection-efficiency sigmoid reff(g) = s0 / (exp(s1 (g - s2)) + 1).
inline constexpr double sigmoid0 = 0.9402;
inline constexpr double sigmoid1 = 1.6171;  ///< s1: steepness of the fall-off [1/mag]
inline constexpr double sigmoid2 = 23.5877;  ///< s2: magnitude at which the efficiency is s0 / 2
/// Log-likelihood contribution of a star whose mixture probability is exactly zero.
inline constexpr double zero_probability_penalty = -238.0;
/// Diagnostic likelihoods (spec section 4.6): threshold and penalty of the 2012 program.
inline constexpr double diagnostic_threshold = 1e-15;
inline constexpr double diagnostic_penalty = -241.0;  ///< the 2012 program's -238 shifted by its -3.0 offset (spec 8)
/// Streams narrower than this [kpc] are rejected (the original code silently produced NaN).
inline constexpr double min_stream_sigma = 1e-4;
/// SDSS survey centre and stripe geometry [deg].
inline constexpr double survey_centre_ra = 185.0;
inline constexpr double survey_centre_dec = 32.5;  ///< added to eta(w) to give the inclination i(w) (spec 2.2)
inline constexpr double stripe_separation = 2.5;  ///< eta(w) = 2.5 w - 57.5 [- 180 for w > 46] (spec 2.2)
inline constexpr double stripe_node = survey_centre_ra - 90.0;  ///< ascending node of every stripe's great circle
/// Most streams any backend supports with compile-time unrolling (the CPU accepts any number).
inline constexpr int max_gpu_streams = 4;

}  // namespace mwsep::constants
