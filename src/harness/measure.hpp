/// @file measure.hpp
/// @brief The one measurement loop of every timing command: samples under the stop rule (sampling.hpp),
/// each with the clock seen while it ran; throttled samples discarded and taken again, or kept.
///
/// The loop is written once, here, for every clock: CUDA events on a stream or the host's steady clock
/// (measure_cuda.hpp), the host clock for the CPU benches (measure_host below), a fake clock in the
/// tests. A command prepares and checks its work, calls one of them, and writes its own columns beside
/// the timing columns of measure_options.hpp.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "harness/clock_monitor.hpp"  // ClockReading (the header needs no CUDA)
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

/// The CPU engine: times @p work on the host's steady clock under the stop rule of @p options. The host
/// has no clock monitor and no cache flush: every sample is kept, none is cold.
inline Measurement measure_host(const MeasureOptions& options, const std::function<void()>& work) {
    MeasureOptions host = options;
    host.cold = false;
    host.throttle = Throttle::keep;
    return run_measurement(host, steady_seconds, [&] {
        const double t0 = steady_seconds();
        work();
        return Sample{(steady_seconds() - t0) * 1e3, {}};
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

}  // namespace harness
