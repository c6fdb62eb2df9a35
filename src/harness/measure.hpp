/// @file measure.hpp
/// @brief The one measurement loop of every timing command: samples under the stop rule (sampling.hpp),
/// each with the clock seen while it ran; throttled samples discarded and taken again, or kept.
///
/// The loop is written once, here, for every clock: CUDA events on a stream or the host's steady clock
/// (measure_cuda.hpp), the host clock for the CPU benches (measure_host below), a fake clock in the
/// tests. A command prepares and checks its work, calls one of them, and writes its own columns beside
/// the timing columns of measure_options.hpp.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "harness/clock_monitor.hpp"  // ClockReading (the header needs no CUDA)
#include "harness/progress.hpp"
#include "harness/sampling.hpp"
#include "harness/statistics.hpp"

namespace harness {

/// What to do with a sample during which the GPU was held below its clock (power, heat).
enum class Throttle {
    discard,  ///< drop it, pause, and take it again (the count of dropped samples is recorded)
    keep,     ///< keep it, flagged
};

/// How to measure: when to stop, cold or warm caches, what to do with throttled samples.
struct MeasureOptions {
    /// When to stop sampling.
    StopCriterion stop;
    /// Flush the GPU's L2 cache before each sample (a cold input); false: the input stays in cache from the
    /// previous sample (warm).
    bool cold = false;
    /// What to do with a sample taken while the GPU throttled.
    Throttle throttle = Throttle::discard;
    /// Pause after a discarded sample, so that the GPU can cool [ms].
    int cool_down_ms = 100;
};

/// One timed sample.
struct Sample {
    double ms = 0;        ///< its time [ms]
    ClockReading clock;   ///< what the clock monitor saw while it ran (polls 0: not monitored)
    int attempt = 0;      ///< which take it was (0-based, discarded ones counted): the key to a caller's own data
};

/// The kept samples of one measurement and how it ended.
struct Measurement {
    std::vector<Sample> samples;  ///< in the order taken
    std::string stop_reason;      ///< noise, noise_settled, max_samples or time_limit
    double noise_pct = 0;         ///< relative standard deviation of the kept samples [%]
    int discarded_throttled = 0;  ///< throttled samples dropped and taken again
    bool cold = false;            ///< whether L2 was flushed before each sample
    double elapsed_s = 0;         ///< wall time of the whole measurement [s]

    /// The kept samples' times [ms].
    std::vector<double> ms() const {
        std::vector<double> out;
        for (const auto& s : samples) out.push_back(s.ms);
        return out;
    }
    /// Median, minimum and maximum of the kept samples [ms].
    Summary summary() const { return summarize(ms()); }
};

/// Takes samples from @p take until the stop rule of @p options is met. @p now_s gives the wall time in
/// seconds (any origin). A throttled sample under Throttle::discard is dropped, followed by a pause of
/// cool_down_ms, and taken again; after max_samples such drops the GPU is taken to be throttled for good
/// and later throttled samples are kept (flagged), so that the measurement always ends.
inline Measurement run_measurement(const MeasureOptions& options, const std::function<double()>& now_s,
                                   const std::function<Sample()>& take) {
    Sampling rule(options.stop);
    Measurement m;
    m.cold = options.cold;
    const double t0 = now_s();
    for (int attempt = 0;; ++attempt) {
        Sample s = take();
        s.attempt = attempt;
        if (s.clock.throttled && options.throttle == Throttle::discard &&
            m.discarded_throttled < options.stop.max_samples) {
            ++m.discarded_throttled;
            if (options.cool_down_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(options.cool_down_ms));
            continue;
        }
        m.samples.push_back(s);
        rule.add(s.ms);
        if (rule.done(now_s() - t0)) break;
    }
    m.stop_reason = rule.reason();
    m.noise_pct = rule.noise_pct();
    m.elapsed_s = now_s() - t0;
    return m;
}

/// Seconds on the host's steady clock.
inline double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace detail {

/// Reports a long host measurement on stderr after each sample, once it has run two seconds: the samples
/// taken, their mean time and the time left until the minimum is in. For the commands whose CPU work shows no
/// progress of its own (a command that draws its own passes a Deadline to measure_host instead).
class HostSampleProgress {
public:
    /// Starts the clock; @p stop gives the minimum samples the report counts down to.
    explicit HostSampleProgress(const StopCriterion& stop) : stop_(stop), t0_(steady_seconds()) {}
    /// Counts a sample of @p ms and reports, at most once a second after the first two seconds.
    void sample_done(double ms) {
        ++taken_;
        total_ms_ += ms;
        const double elapsed = steady_seconds() - t0_;
        if (elapsed < 2.0 || elapsed - last_ < 1.0) return;
        last_ = elapsed;
        const double mean_s = total_ms_ / 1e3 / taken_;
        const int left = std::max(0, stop_.min_samples - taken_);
        const std::string& command = current_command_name();
        std::fprintf(stderr, "%s%ssample %d done after %s (about %s each)%s\n", command.c_str(), command.empty() ? "" : ": ",
                     taken_, duration_text(elapsed).c_str(), duration_text(mean_s).c_str(),
                     left > 0 ? (", about " + duration_text(left * mean_s) + " left for the minimum of " +
                                 std::to_string(stop_.min_samples)).c_str()
                              : ", the minimum is in");
    }

private:
    /// "<program> <command>" while a command of a program runs (harness::current_command, subcommands.hpp).
    static const std::string& current_command_name();
    StopCriterion stop_;
    double t0_;
    int taken_ = 0;
    double total_ms_ = 0;
    double last_ = -1e9;
};

}  // namespace detail

/// The CPU engine: times @p work on the host's steady clock under the stop rule of @p options. The host
/// has no clock monitor and no cache flush: every sample is kept, none is cold. A measurement that runs
/// longer than two seconds reports each sample on stderr (detail::HostSampleProgress).
inline Measurement measure_host(const MeasureOptions& options, const std::function<void()>& work) {
    MeasureOptions host = options;
    host.cold = false;
    host.throttle = Throttle::keep;
    detail::HostSampleProgress progress(host.stop);
    return run_measurement(host, steady_seconds, [&] {
        const double t0 = steady_seconds();
        work();
        const double ms = (steady_seconds() - t0) * 1e3;
        progress.sample_done(ms);
        return Sample{ms, {}};
    });
}

/// The CPU engine for work that measures itself (a CPU time, a time minus a baseline): @p sample_ms returns
/// one sample's time [ms].
inline Measurement measure_host_samples(const MeasureOptions& options, const std::function<double()>& sample_ms) {
    MeasureOptions host = options;
    host.cold = false;
    host.throttle = Throttle::keep;
    return run_measurement(host, steady_seconds, [&] { return Sample{sample_ms(), {}}; });
}

/// @p options with its time limit cut to what @p deadline leaves (never below a millisecond, so that the
/// rule stays valid; the deadline itself stops the command).
inline MeasureOptions within(MeasureOptions options, const Deadline& deadline) {
    options.stop.time_limit_s = std::max(1e-3, std::min(options.stop.time_limit_s, deadline.left_s()));
    return options;
}

/// measure_host_samples within a whole command's @p deadline, as measure_host below.
inline Measurement measure_host_samples(const MeasureOptions& options, const std::function<double()>& sample_ms,
                                        const Deadline& deadline) {
    return measure_host_samples(within(options, deadline), [&] {
        deadline.check();
        return sample_ms();
    });
}

/// measure_host within a whole command's @p deadline: the sampling ends at the deadline once the minimum is
/// in, and no sample starts after it has passed (Deadline::check throws TimeLimitReached). The command shows
/// its own progress: this one reports none.
inline Measurement measure_host(const MeasureOptions& options, const std::function<void()>& work, const Deadline& deadline) {
    return measure_host_samples(options, [&] {
        const double t0 = steady_seconds();
        work();
        return (steady_seconds() - t0) * 1e3;
    }, deadline);
}

}  // namespace harness
