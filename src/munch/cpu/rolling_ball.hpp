/// @file rolling_ball.hpp
/// @brief The CPU rolling-ball baseline filter: a grey-scale opening (erosion, then dilation) of a
/// signal by a non-flat structuring element, the ball.
///
/// Both passes are written as gathers: each output reads its window and is written by one thread only.
/// The thesis's OpenMP dilation scattered every eroded value into |L| outputs from parallel iterations, a
/// data race (two threads may both read, then both write, one output and lose a maximum); the gather form
/// computes the same opening without it. Both passes evaluate the n outputs the result keeps, as the GPU
/// kernels do: the thesis's CPU code evaluated all n + |L| - 1 positions and cut the margins off after, up
/// to twice the work of its GPU code for a ball as wide as the signal (rolling_ball_published_cpu_work).
#pragma once

#include <cstddef>
#include <vector>

namespace munch::cpu {

/// The erosion e[i] = min_k (x[i - r + k] - ball[k]) for i in [0, n), x = +inf outside (r = (w-1)/2).
void erode(const std::vector<float>& signal, const std::vector<float>& ball, std::vector<float>& out, int threads = 1);

/// The dilation d[i] = max_k (e[i - r + k] + ball[w-1-k]) for i in [0, n), e = -inf outside.
void dilate(const std::vector<float>& eroded, const std::vector<float>& ball, std::vector<float>& out, int threads = 1);

/// The opening, dilate(erode(signal)), on @p threads OpenMP threads (1: sequential). The baseline the
/// filter estimates; the signal minus it keeps the peaks.
std::vector<float> rolling_ball(const std::vector<float>& signal, const std::vector<float>& ball, int threads = 1);

/// The window evaluations of the thesis's CPU code (Listings A.5/A.6): both passes over all n + w - 1
/// positions, w taps each.
double rolling_ball_published_cpu_work(std::size_t n, std::size_t w);

/// The window evaluations of the thesis's GPU code and of every implementation here: both passes over
/// the n kept positions, w taps each.
double rolling_ball_kept_work(std::size_t n, std::size_t w);

}  // namespace munch::cpu
