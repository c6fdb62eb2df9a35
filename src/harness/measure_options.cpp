#include "harness/measure_options.hpp"

#include <climits>
#include <cstdio>
#include <sstream>

#include "harness/csv.hpp"
#include "harness/json.hpp"

namespace harness {

std::vector<OptionSpec> measure_option_specs() {
    return {{"--min-samples", OptionKind::value}, {"--max-samples", OptionKind::value},
            {"--min-time", OptionKind::value},    {"--noise-target", OptionKind::value},
            {"--time-limit", OptionKind::value},  {"--cold", OptionKind::flag},
            {"--throttle", OptionKind::value},    {"--print-criterion", OptionKind::flag},
            {"--repeats", OptionKind::value}};
}

MeasureOptions parse_measure_options(const Options& o, const MeasureOptions& defaults) {
    MeasureOptions m = defaults;
    StopCriterion& c = m.stop;
    if (o.has("--repeats") && o.has("--min-samples"))
        throw o.error("--repeats", "is the older name of --min-samples: give one of them");
    const std::string min_name = o.has("--repeats") ? "--repeats" : "--min-samples";
    c.min_samples = static_cast<int>(o.integer(min_name, c.min_samples, 1, 1000000));
    if (o.has("--max-samples")) {
        c.max_samples = static_cast<int>(o.integer("--max-samples", c.max_samples, 1, 1000000));
        if (c.max_samples < c.min_samples)
            throw o.error("--max-samples", "must be at least the minimum (" + std::to_string(c.min_samples) + "), found '" +
                                               o.text("--max-samples") + "'");
    } else if (c.max_samples < c.min_samples) {
        c.max_samples = c.min_samples;  // a larger minimum than the default maximum moves the maximum
    }
    c.min_time_s = o.real("--min-time", c.min_time_s);
    if (c.min_time_s < 0) throw o.error("--min-time", "must be 0 or more, found '" + o.text("--min-time") + "'");
    c.noise_target_pct = o.real("--noise-target", c.noise_target_pct);
    if (c.noise_target_pct < 0)
        throw o.error("--noise-target", "must be 0 or more, found '" + o.text("--noise-target") + "'");
    c.time_limit_s = o.real("--time-limit", c.time_limit_s);
    if (c.time_limit_s <= 0) throw o.error("--time-limit", "must be positive, found '" + o.text("--time-limit") + "'");
    if (o.has("--cold")) m.cold = true;
    m.throttle = o.choice("--throttle", {"discard", "keep"}, m.throttle == Throttle::keep ? "keep" : "discard") == "keep"
                     ? Throttle::keep
                     : Throttle::discard;
    c.validate();
    return m;
}

std::string measure_options_help(const MeasureOptions& d) {
    char buffer[4096];
    std::snprintf(buffer, sizeof buffer,
                  "  --min-samples N            at least N timed samples after one warm-up (default %d; --repeats N: the same)\n"
                  "  --max-samples N            at most N samples (default %d)\n"
                  "  --min-time S               the samples add up to S seconds before the noise is judged (default %g)\n"
                  "  --noise-target PCT         stop once the relative standard deviation is <= PCT, or has settled:\n"
                  "                             over the last %d samples within %g %% of its mean (default %g)\n"
                  "  --time-limit S             stop after S seconds of sampling, once the minimum is in (default %g)\n"
                  "  --cold                     flush the GPU's L2 cache before each sample (default: %s)\n"
                  "  --throttle discard|keep    drop a sample taken while the GPU was throttled and take it again, or\n"
                  "                             keep it flagged (default %s)\n"
                  "  --print-criterion          print these settings as JSON and exit\n",
                  d.stop.min_samples, d.stop.max_samples, d.stop.min_time_s, d.stop.settle_window, d.stop.settle_band_pct,
                  d.stop.noise_target_pct, d.stop.time_limit_s, d.cold ? "cold" : "warm",
                  d.throttle == Throttle::keep ? "keep" : "discard");
    return buffer;
}

std::string criterion_json(const std::string& command, const MeasureOptions& m, const std::string& timer) {
    std::ostringstream out;
    JsonObject j(out);
    j.string("command", command)
        .integer("min_samples", m.stop.min_samples)
        .integer("max_samples", m.stop.max_samples)
        .number("min_time_s", m.stop.min_time_s)
        .number("noise_target_pct", m.stop.noise_target_pct)
        .integer("settle_window", m.stop.settle_window)
        .number("settle_band_pct", m.stop.settle_band_pct)
        .number("time_limit_s", m.stop.time_limit_s)
        .string("cache", m.cold ? "cold" : "warm")
        .string("throttle", m.throttle == Throttle::keep ? "keep" : "discard")
        .integer("cool_down_ms", m.cool_down_ms)
        .string("timer", timer);
    j.close();
    return out.str();
}

bool print_criterion_if_asked(const Options& o, const std::string& command, const MeasureOptions& m,
                              const std::string& timer) {
    if (!o.has("--print-criterion")) return false;
    std::printf("%s\n", criterion_json(command, m, timer).c_str());
    return true;
}

const std::vector<std::string>& timing_columns() {
    static const std::vector<std::string> columns = {"sm_clock_mhz", "throttled", "noise_pct", "samples",
                                                     "stop_reason",  "cache",     "discarded_throttled"};
    return columns;
}

std::vector<std::string> timing_values(const Measurement& m, std::size_t i) {
    const Sample& s = m.samples.at(i);
    const bool monitored = s.clock.polls > 0;
    return {monitored ? csv_number(s.clock.sm_clock_mhz) : "",
            monitored ? (s.clock.throttled ? "true" : "false") : "",
            csv_number(m.noise_pct),
            std::to_string(m.samples.size()),
            m.stop_reason,
            m.cold ? "cold" : "warm",
            std::to_string(m.discarded_throttled)};
}

std::vector<std::string> with_timing_columns(std::vector<std::string> own) {
    for (const auto& c : timing_columns()) own.push_back(c);
    return own;
}

std::vector<std::string> with_timing_values(std::vector<std::string> own, const Measurement& m, std::size_t i) {
    for (auto& v : timing_values(m, i)) own.push_back(std::move(v));
    return own;
}

}  // namespace harness
