/// @file sampling.hpp
/// @brief When to stop timing: a minimum number of samples, then a noise target or a time limit.
///
/// A fixed number of repeats is either too few for a noisy measurement or wasted on a steady one. The
/// sampling takes at least `min_samples`; after that it stops as soon as the relative standard deviation
/// of the samples is at or below `noise_target_pct`, and in any case at `max_samples` or once the samples
/// add up to `time_limit_s`. The reason it stopped is recorded with the result, so a timing that ran out
/// of time before it became steady is visible as such.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

/// The stopping rule of one measurement.
struct StopCriterion {
    int min_samples = 5;            ///< samples always taken
    int max_samples = 50;           ///< samples never exceeded
    double noise_target_pct = 0.5;  ///< stop once the relative standard deviation is at or below this [%]
    double time_limit_s = 30;       ///< stop once the samples add up to this many seconds
};

/// Relative standard deviation of @p samples in percent (sample standard deviation over the mean); 0 for
/// fewer than two samples.
inline double relative_stdev_pct(const std::vector<double>& samples) {
    const std::size_t n = samples.size();
    if (n < 2) return 0;
    double mean = 0;
    for (double s : samples) mean += s;
    mean /= static_cast<double>(n);
    double squares = 0;
    for (double s : samples) squares += (s - mean) * (s - mean);
    const double stdev = std::sqrt(squares / static_cast<double>(n - 1));
    return mean != 0 ? 100.0 * stdev / std::fabs(mean) : 0;
}

/// Collects the samples of one measurement and says when to stop.
class Sampling {
public:
    /// Checks the criterion: at least one sample, max_samples >= min_samples, non-negative targets.
    explicit Sampling(const StopCriterion& c) : c_(c) {
        if (c.min_samples < 1 || c.max_samples < c.min_samples || c.noise_target_pct < 0 || c.time_limit_s <= 0)
            throw std::invalid_argument(
                "sampling: need 1 <= min_samples <= max_samples, noise_target_pct >= 0 and time_limit_s > 0");
    }
    /// Adds one sample of @p ms milliseconds.
    void add(double ms) {
        samples_.push_back(ms);
        total_s_ += ms / 1e3;
    }
    /// Whether to stop now; reason() says why.
    bool done() {
        const int n = static_cast<int>(samples_.size());
        if (n >= c_.max_samples) reason_ = "max_samples";
        else if (n >= c_.min_samples && noise_pct() <= c_.noise_target_pct) reason_ = "noise";
        else if (n >= c_.min_samples && total_s_ >= c_.time_limit_s) reason_ = "time_limit";
        else return false;
        return true;
    }
    /// Why the sampling stopped: noise (the target was met), max_samples or time_limit.
    const std::string& reason() const { return reason_; }
    /// Relative standard deviation of the samples so far [%].
    double noise_pct() const { return relative_stdev_pct(samples_); }
    /// The samples so far [ms].
    const std::vector<double>& samples() const { return samples_; }

private:
    StopCriterion c_;
    std::vector<double> samples_;
    double total_s_ = 0;
    std::string reason_;
};

}  // namespace harness
