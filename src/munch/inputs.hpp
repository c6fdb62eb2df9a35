/// @file inputs.hpp
/// @brief The study's inputs, made from a seed: signals and filters of small integers for the
/// convolution (every product and partial sum is then exact in float, whatever the order of the
/// additions or a fused multiply-add, so the GPU must agree with the CPU bit for bit), and a drifting,
/// noisy chromatogram-like signal with a half-circle "ball" for the rolling-ball filter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace munch {

/// Largest magnitude of a convolution signal sample.
inline constexpr int signal_magnitude = 3;
/// Largest magnitude of a convolution filter tap.
inline constexpr int filter_magnitude = 2;
/// The widest filter whose outputs stay exact in float with these magnitudes (|sum| < 2^24).
inline constexpr std::size_t widest_exact_filter = (std::size_t{1} << 24) / (signal_magnitude * filter_magnitude);

/// @p n integers uniformly in [-@p magnitude, @p magnitude], as floats, from @p seed.
std::vector<float> small_integers(std::size_t n, int magnitude, std::uint64_t seed);

/// A convolution signal of length @p n (integers in [-3, 3]).
std::vector<float> convolution_signal(std::size_t n, std::uint64_t seed = 1);

/// A convolution filter of width @p w (integers in [-2, 2], not symmetric, so that a filter used the
/// wrong way round fails the check). Throws std::invalid_argument for a width of 0 or one too wide to
/// stay exact.
std::vector<float> convolution_filter(std::size_t w, std::uint64_t seed = 2);

/// A chromatogram-like signal of length @p n: a slow baseline drift, a few peaks and noise.
std::vector<float> baseline_signal(std::size_t n, std::uint64_t seed = 3);

/// The rolling ball of width @p w (odd, at least 1): a half-circle of radius (w-1)/2 samples, height in
/// signal units scaled by @p height_per_sample. Throws std::invalid_argument for an even or zero width.
std::vector<float> ball_profile(std::size_t w, float height_per_sample = 0.05f);

}  // namespace munch
