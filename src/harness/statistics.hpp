/// @file statistics.hpp
/// @brief Summary statistics of repeated timings: median, minimum, maximum.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace harness {

/// Median (mean of the two middle values for an even count), minimum and maximum of a sample.
struct Summary {
    double median = 0;       ///< in the unit of the samples
    double min = 0;          ///< smallest sample
    double max = 0;          ///< largest sample
    std::size_t count = 0;   ///< number of samples
};

/// Summarises @p samples (taken by value because it sorts them). Throws std::invalid_argument if empty.
inline Summary summarize(std::vector<double> samples) {
    if (samples.empty()) throw std::invalid_argument("summarize: no samples");
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    const double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    return {median, samples.front(), samples.back(), n};
}

}  // namespace harness
