/// @file sampling.hpp
/// @brief When to stop timing: a minimum count and a minimum total time, then a noise target, or noise
/// that has settled above it; never more than a maximum count or longer than a time limit.
///
/// A fixed number of repeats is either too few for a noisy measurement or wasted on a steady one. The rule
/// takes at least `min_samples` samples that add up to at least `min_time_s`; after that it stops as soon
/// as the relative standard deviation of the samples is at or below `noise_target_pct`. A measurement whose
/// noise stays above the target does not run on to the limits when more samples no longer change it: once
/// the noise measured after each of the last `settle_window` samples lies within a band `settle_band_pct`
/// percent of their mean wide, the noise has settled and the rule stops ("noise_settled"). In any case it
/// stops at `max_samples`, or when the wall time since the first sample reaches `time_limit_s` (once
/// `min_samples` are in). The reason is recorded with the result, so a timing that ran out of time before
/// it became steady is visible as such.
///
/// The rule is given the elapsed wall time by its caller, so that a test can drive it with a fake clock.
#pragma once

#include <algorithm>
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
    double min_time_s = 0;          ///< the kept samples add up to at least this before noise is looked at [s]
    double noise_target_pct = 0.5;  ///< stop once the relative standard deviation is at or below this [%]
    int settle_window = 10;         ///< noise values (one per sample) looked at for settling; 0: never settles
    double settle_band_pct = 5;     ///< settled: the window's noise values span at most this % of their mean
    double time_limit_s = 30;       ///< stop once this much wall time has passed since the first sample [s]

    /// Throws std::invalid_argument naming the first field out of range.
    void validate() const {
        const auto fail = [](const char* what) { throw std::invalid_argument(std::string("stop criterion: ") + what); };
        if (min_samples < 1) fail("min_samples must be at least 1");
        if (max_samples < min_samples) fail("max_samples must be at least min_samples");
        if (!(min_time_s >= 0) || !std::isfinite(min_time_s)) fail("min_time_s must be 0 or more");
        if (!(noise_target_pct >= 0) || !std::isfinite(noise_target_pct)) fail("noise_target_pct must be 0 or more");
        if (settle_window < 0 || settle_window == 1) fail("settle_window must be 0 (off) or at least 2");
        if (!(settle_band_pct >= 0) || !std::isfinite(settle_band_pct)) fail("settle_band_pct must be 0 or more");
        if (!(time_limit_s > 0) || !std::isfinite(time_limit_s)) fail("time_limit_s must be positive");
    }
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

/// Collects the kept samples of one measurement and says when to stop.
class Sampling {
public:
    /// Checks the criterion (StopCriterion::validate).
    explicit Sampling(const StopCriterion& c) : c_(c) { c.validate(); }

    /// Adds one kept sample of @p ms milliseconds.
    void add(double ms) {
        samples_.push_back(ms);
        total_s_ += ms / 1e3;
        noise_ = relative_stdev_pct(samples_);
        // The noise history counts from the point the noise may be judged at all.
        if (static_cast<int>(samples_.size()) >= c_.min_samples && total_s_ >= c_.min_time_s) history_.push_back(noise_);
    }

    /// Whether to stop now, @p elapsed_s seconds of wall time after the measurement began; reason() says why.
    bool done(double elapsed_s) {
        const int n = count();
        if (n >= c_.max_samples) reason_ = "max_samples";
        else if (n < c_.min_samples) return false;
        else if (elapsed_s >= c_.time_limit_s) reason_ = "time_limit";
        else if (total_s_ < c_.min_time_s) return false;
        else if (noise_ <= c_.noise_target_pct) reason_ = "noise";
        else if (settled()) reason_ = "noise_settled";
        else return false;
        return true;
    }

    /// Whether the last settle_window noise values span at most settle_band_pct % of their mean.
    bool settled() const {
        const auto w = static_cast<std::size_t>(c_.settle_window);
        if (w < 2 || history_.size() < w) return false;
        const auto first = history_.end() - static_cast<std::ptrdiff_t>(w);
        const auto [lo, hi] = std::minmax_element(first, history_.end());
        double mean = 0;
        for (auto it = first; it != history_.end(); ++it) mean += *it;
        mean /= static_cast<double>(w);
        return *hi - *lo <= c_.settle_band_pct / 100.0 * mean;
    }

    /// Why the sampling stopped: noise, noise_settled, max_samples or time_limit (empty before).
    const std::string& reason() const { return reason_; }
    /// Relative standard deviation of the samples so far [%].
    double noise_pct() const { return noise_; }
    /// The kept samples so far [ms].
    const std::vector<double>& samples() const { return samples_; }
    /// Their number.
    int count() const { return static_cast<int>(samples_.size()); }
    /// Their sum [s].
    double total_s() const { return total_s_; }

private:
    StopCriterion c_;
    std::vector<double> samples_;
    std::vector<double> history_;
    double total_s_ = 0;
    double noise_ = 0;
    std::string reason_;
};

}  // namespace harness
