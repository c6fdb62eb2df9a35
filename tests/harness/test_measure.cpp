// The stop rule and the measurement engine, driven by a fake clock and fake samples whose outcome is worked
// out by hand; and the measurement options every timing command parses.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <deque>
#include <string>
#include <vector>

#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/sampling.hpp"

namespace {

using namespace harness;

StopCriterion criterion(int min, int max, double noise_pct, double limit_s) {
    StopCriterion c;
    c.min_samples = min;
    c.max_samples = max;
    c.noise_target_pct = noise_pct;
    c.time_limit_s = limit_s;
    c.settle_window = 0;  // settling off unless a test turns it on
    return c;
}

TEST(StopRule, RelativeStdevWorkedByHand) {
    // Mean 10, sample variance ((1 + 1 + 0) / 2) = 1, stdev 1: 10 %.
    EXPECT_NEAR(relative_stdev_pct({9.0, 11.0, 10.0}), 10.0, 1e-12);
    EXPECT_EQ(relative_stdev_pct({5.0}), 0.0);
}

TEST(StopRule, StopsOnNoiseOnlyAfterTheMinimumCount) {
    Sampling s(criterion(3, 10, 1.0, 100));
    s.add(10.0);
    s.add(10.0);
    EXPECT_FALSE(s.done(0.0)) << "two identical samples are steady, but the minimum is three";
    s.add(10.0);
    EXPECT_TRUE(s.done(0.0));
    EXPECT_EQ(s.reason(), "noise");
}

TEST(StopRule, StopsOnNoiseOnlyAfterTheMinimumTime) {
    // Identical 10 ms samples are steady from the second on; with 0.05 s of minimum time the rule waits
    // for the fifth (10 + 10 + 10 + 10 = 40 ms < 50 ms; the fifth makes 50 ms).
    StopCriterion c = criterion(2, 100, 1.0, 100);
    c.min_time_s = 0.05;
    Sampling s(c);
    for (int i = 1; i <= 4; ++i) {
        s.add(10.0);
        EXPECT_FALSE(s.done(0.0)) << "after " << i << " samples";
    }
    s.add(10.0);
    EXPECT_TRUE(s.done(0.0));
    EXPECT_EQ(s.reason(), "noise");
    EXPECT_NEAR(s.total_s(), 0.05, 1e-15);
}

TEST(StopRule, NoisySamplesRunToTheMaximumCount) {
    Sampling s(criterion(2, 4, 0.1, 1e9));
    for (double ms : {1.0, 2.0, 1.0}) {
        s.add(ms);
        EXPECT_FALSE(s.done(0.0));
    }
    s.add(2.0);
    EXPECT_TRUE(s.done(0.0));
    EXPECT_EQ(s.reason(), "max_samples");
}

TEST(StopRule, StopsAtTheTimeLimitOfTheClockOnceTheMinimumIsIn) {
    Sampling s(criterion(2, 100, 0.0, 1.0));  // 1 s of wall time at most
    s.add(600.0);
    EXPECT_FALSE(s.done(5.0)) << "the time is up, but one sample is below the minimum of two";
    s.add(700.0);
    EXPECT_FALSE(s.done(0.9)) << "noisy, and 0.9 s of wall time";
    s.add(650.0);
    EXPECT_TRUE(s.done(1.0));
    EXPECT_EQ(s.reason(), "time_limit");
}

TEST(StopRule, NoiseThatSettledAboveTheTargetStops) {
    // Samples alternate 9, 11, 9, ...; their relative standard deviation after 2..7 samples (worked by
    // hand: mean and sample stdev) is 14.142, 11.945, 11.547, 11.178, 10.954, 10.845 %: far above a 0.5 %
    // target, but settling. Window 3, band 5 %: after 6 samples the last three values span
    // 11.547 - 10.954 = 0.593 > 0.05 x 11.226 = 0.561; after 7 they span 11.178 - 10.845 = 0.333 <=
    // 0.05 x 10.992 = 0.550: settled.
    StopCriterion c = criterion(2, 100, 0.5, 100);
    c.settle_window = 3;
    c.settle_band_pct = 5;
    Sampling s(c);
    for (int i = 0; i < 6; ++i) {
        s.add(i % 2 ? 11.0 : 9.0);
        EXPECT_FALSE(s.done(0.0)) << "after " << i + 1 << " samples";
    }
    EXPECT_NEAR(s.noise_pct(), 10.954451150103322, 1e-9);
    s.add(9.0);
    EXPECT_TRUE(s.done(0.0));
    EXPECT_EQ(s.reason(), "noise_settled");
    EXPECT_NEAR(s.noise_pct(), 10.845383729779540, 1e-9);
}

TEST(StopRule, SettlingCountsOnlyNoiseAfterTheMinimumTime) {
    // The same sequence with 0.045 s of minimum time: the noise is judged from the fifth sample (45 ms)
    // on, so the window of three is full only after the seventh and spans 11.178 - 10.845 = 0.333 <=
    // 0.550: it stops there as before; with 0.055 s it is judged from the sixth on and stops after the eighth.
    for (const auto& [min_time, stop_at] : std::vector<std::pair<double, int>>{{0.045, 7}, {0.055, 8}}) {
        StopCriterion c = criterion(2, 100, 0.5, 100);
        c.settle_window = 3;
        c.min_time_s = min_time;
        Sampling s(c);
        int n = 0;
        do s.add(n++ % 2 ? 11.0 : 9.0);
        while (!s.done(0.0));
        EXPECT_EQ(n, stop_at) << "min time " << min_time;
        EXPECT_EQ(s.reason(), "noise_settled");
    }
}

TEST(StopRule, RefusesAnImpossibleCriterion) {
    EXPECT_THROW(Sampling(criterion(0, 5, 1.0, 1.0)), std::invalid_argument);
    EXPECT_THROW(Sampling(criterion(5, 4, 1.0, 1.0)), std::invalid_argument);
    EXPECT_THROW(Sampling(criterion(1, 4, 1.0, 0.0)), std::invalid_argument);
    StopCriterion c = criterion(1, 4, 1.0, 1.0);
    c.settle_window = 1;
    EXPECT_THROW(Sampling{c}, std::invalid_argument);
    c.settle_window = 0;
    c.min_time_s = -1;
    EXPECT_THROW(Sampling{c}, std::invalid_argument);
}

/// A fake clock and a fake GPU: each sample advances the clock by its own time and comes with a throttle flag.
struct FakeRun {
    std::deque<Sample> queue;
    double now = 0;
    int taken = 0;
    Sample take() {
        Sample s = queue.front();
        queue.pop_front();
        now += s.ms / 1e3;
        ++taken;
        return s;
    }
};

Sample sample(double ms, bool throttled) { return Sample{ms, ClockReading{1980, throttled, 3}}; }

TEST(MeasureEngine, DiscardsThrottledSamplesAndTakesThemAgain) {
    FakeRun run;
    run.queue = {sample(10, false), sample(30, true), sample(10, false), sample(31, true), sample(10, false)};
    MeasureOptions o;
    o.stop = criterion(3, 10, 1.0, 100);
    o.cool_down_ms = 0;
    const Measurement m = run_measurement(o, [&] { return run.now; }, [&] { return run.take(); });
    EXPECT_EQ(run.taken, 5);
    EXPECT_EQ(m.discarded_throttled, 2);
    EXPECT_EQ(m.ms(), (std::vector<double>{10, 10, 10}));
    EXPECT_EQ(m.stop_reason, "noise");
    EXPECT_NEAR(m.elapsed_s, 0.091, 1e-12);
}

TEST(MeasureEngine, KeepsThrottledSamplesWhenAsked) {
    FakeRun run;
    run.queue = {sample(10, false), sample(30, true), sample(10, false)};
    MeasureOptions o;
    o.stop = criterion(3, 3, 1.0, 100);
    o.throttle = Throttle::keep;
    const Measurement m = run_measurement(o, [&] { return run.now; }, [&] { return run.take(); });
    EXPECT_EQ(m.discarded_throttled, 0);
    EXPECT_EQ(m.ms(), (std::vector<double>{10, 30, 10}));
    EXPECT_TRUE(m.samples[1].clock.throttled);
    EXPECT_EQ(m.stop_reason, "max_samples");
}

TEST(MeasureEngine, AGpuThrottledForGoodStillEnds) {
    // Every sample throttled: max_samples (2) are dropped, then the rest are kept, flagged.
    FakeRun run;
    for (int i = 0; i < 10; ++i) run.queue.push_back(sample(20, true));
    MeasureOptions o;
    o.stop = criterion(2, 2, 1.0, 100);
    o.cool_down_ms = 0;
    const Measurement m = run_measurement(o, [&] { return run.now; }, [&] { return run.take(); });
    EXPECT_EQ(m.discarded_throttled, 2);
    EXPECT_EQ(m.samples.size(), 2u);
    EXPECT_EQ(run.taken, 4);
}

TEST(MeasureEngine, TheTimeLimitCountsDiscardedSamplesToo) {
    // Wall time runs on while throttled samples are dropped: 0.6 s kept, 0.5 s dropped, then 0.1 s kept
    // makes 1.2 s of wall time, past the 1 s limit, with the minimum of two in.
    FakeRun run;
    run.queue = {sample(600, false), sample(500, true), sample(100, false), sample(100, false)};
    MeasureOptions o;
    o.stop = criterion(2, 10, 0.0, 1.0);
    o.cool_down_ms = 0;
    const Measurement m = run_measurement(o, [&] { return run.now; }, [&] { return run.take(); });
    EXPECT_EQ(m.samples.size(), 2u);
    EXPECT_EQ(m.stop_reason, "time_limit");
    EXPECT_EQ(m.discarded_throttled, 1);
}

std::vector<OptionSpec> specs() { return measure_option_specs(); }

TEST(MeasureOptionsParsing, ReadsEveryOption) {
    const Options o({"--min-samples", "7", "--min-time", "0.5", "--noise-target", "2", "--time-limit", "9", "--cold",
                     "--throttle", "keep"},
                    specs(), "prog bench");
    MeasureOptions d;
    d.stop.max_samples = 6;
    const MeasureOptions m = parse_measure_options(o, d);
    EXPECT_EQ(m.stop.min_samples, 7);
    EXPECT_EQ(m.stop.max_samples, 7) << "a minimum above the default maximum moves the maximum";
    EXPECT_EQ(m.stop.min_time_s, 0.5);
    EXPECT_EQ(m.stop.noise_target_pct, 2.0);
    EXPECT_EQ(m.stop.time_limit_s, 9.0);
    EXPECT_TRUE(m.cold);
    EXPECT_EQ(m.throttle, Throttle::keep);
}

TEST(MeasureOptionsParsing, RefusesContradictionsWithTheOptionNamed) {
    const auto parse = [](std::vector<std::string> args) {
        return parse_measure_options(Options(args, specs(), "prog bench"), MeasureOptions{});
    };
    const auto message = [&](std::vector<std::string> args) {
        try {
            parse(args);
        } catch (const OptionError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // The older spelling names the one to write: --repeats meant "exactly N" in some commands and "at least N"
    // in others, so it is refused rather than read either way.
    EXPECT_EQ(message({"--repeats", "3"}),
              "prog bench: --repeats is an old spelling: write --min-samples N (at least N samples, then the noise rule)");
    EXPECT_NE(message({"--min-samples", "9", "--max-samples", "4"}).find("--max-samples must be at least"), std::string::npos);
    EXPECT_NE(message({"--throttle", "sometimes"}).find("--throttle must be one of discard, keep"), std::string::npos);
    EXPECT_NE(message({"--time-limit", "0"}).find("--time-limit must be positive"), std::string::npos);
    EXPECT_NE(message({"--min-time", "-1"}).find("--min-time must be 0 or more"), std::string::npos);
}

TEST(MeasureOptionsParsing, PrintsTheCriterionAsGiven) {
    MeasureOptions m;
    m.stop.min_samples = 4;
    m.cold = true;
    const std::string j = criterion_json("prog bench", m, "CUDA events");
    EXPECT_NE(j.find("\"min_samples\": 4"), std::string::npos) << j;
    EXPECT_NE(j.find("\"cache\": \"cold\""), std::string::npos) << j;
    EXPECT_NE(j.find("\"throttle\": \"discard\""), std::string::npos) << j;
    EXPECT_NE(j.find("\"timer\": \"CUDA events\""), std::string::npos) << j;
}

TEST(MeasureOptionsParsing, TheHelpGivesTheCommandsOwnCacheDefault) {
    MeasureOptions m;
    EXPECT_NE(measure_options_help(m).find("before each sample (default: warm)"), std::string::npos);
    m.cold = true;  // a command that always times cold inputs
    EXPECT_NE(measure_options_help(m).find("before each sample (default: cold)"), std::string::npos);
}

TEST(TimingColumns, OneValuePerColumnAndBlankForAnUnmonitoredClock) {
    Measurement m;
    m.samples = {Sample{1.5, ClockReading{1755, true, 4}}, Sample{2.0, ClockReading{}}};
    m.stop_reason = "noise";
    m.noise_pct = 0.25;
    m.cold = true;
    m.discarded_throttled = 3;
    EXPECT_EQ(timing_values(m, 0), (std::vector<std::string>{"1755", "true", "0.25", "2", "noise", "cold", "3"}));
    EXPECT_EQ(timing_values(m, 1), (std::vector<std::string>{"", "", "0.25", "2", "noise", "cold", "3"}));
    EXPECT_EQ(timing_values(m, 0).size(), timing_columns().size());
    EXPECT_EQ(with_timing_columns({"a"}).front(), "a");
}

}  // namespace

namespace {

// The host's timing columns: the engine's without the GPU's clock, throttling and cache.
TEST(TimingColumns, TheHostColumnsLeaveOutWhatOnlyAGpuHas) {
    Measurement m;
    m.samples = {Sample{1.5, ClockReading{}}, Sample{2.0, ClockReading{}}};
    m.stop_reason = "max_samples";
    m.noise_pct = 0.5;
    EXPECT_EQ(host_timing_columns(), (std::vector<std::string>{"noise_pct", "samples", "stop_reason"}));
    EXPECT_EQ(with_host_timing_values({"x"}, m, 1), (std::vector<std::string>{"x", "0.5", "2", "max_samples"}));
    for (const auto& c : host_timing_columns())
        EXPECT_NE(std::find(timing_columns().begin(), timing_columns().end(), c), timing_columns().end()) << c;
}

// A command's deadline (a user's --time-limit): the measurement's limit is cut to what is left, and no sample
// starts once it has passed; the message says what the command had finished.
TEST(Deadline, CutsTheSamplingAndStopsTheCommand) {
    harness::Deadline none;
    EXPECT_FALSE(none.set());
    EXPECT_NO_THROW(none.check());
    MeasureOptions o;
    o.stop = criterion(3, 3, 0.0, 3600.0);
    EXPECT_EQ(harness::within(o, none).stop.time_limit_s, 3600.0);
    harness::Deadline soon(1.0);
    EXPECT_LE(harness::within(o, soon).stop.time_limit_s, 1.0);
    soon.note("alpha (its rows are in the CSV)");
    int taken = 0;
    try {
        (void)harness::measure_host(o, [&] {
            ++taken;
            std::this_thread::sleep_for(std::chrono::milliseconds(600));
        }, soon);
        ADD_FAILURE() << "no stop";
    } catch (const harness::TimeLimitReached& e) {
        EXPECT_EQ(std::string(e.what()).find("stopped at --time-limit 1 s"), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("finished: alpha (its rows are in the CSV)"), std::string::npos) << e.what();
    }
    EXPECT_EQ(taken, 2) << "the second sample starts before the limit, the third does not";
}

// The measurement options' help names every option with its default, and the host's leave out the GPU's.
TEST(MeasureOptionsHelp, EveryOptionWithItsDefault) {
    MeasureOptions d;
    d.stop.min_samples = 4;
    const std::string text = measure_options_help(d);
    EXPECT_NE(text.find("--min-samples N"), std::string::npos) << text;
    EXPECT_NE(text.find("(default: 4)"), std::string::npos) << text;
    EXPECT_EQ(text.find("--repeats"), std::string::npos) << "an old spelling is not offered";
    std::string host;
    for (const auto& s : host_measure_option_specs(d)) host += s.name + " ";
    EXPECT_EQ(host.find("--cold"), std::string::npos) << host;
    EXPECT_EQ(host.find("--throttle"), std::string::npos) << host;
    EXPECT_NE(host.find("--time-limit"), std::string::npos) << host;
}

}  // namespace
