#include "harness/measure_options.hpp"

#include <climits>
#include <cstdio>
#include <sstream>

#include "harness/csv.hpp"
#include "harness/json.hpp"

namespace harness {

namespace {

const char* const measurement_group = "measurement options";

std::string number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

}  // namespace

std::vector<OptionSpec> measure_option_specs(const MeasureOptions& d) {
    const bool with_defaults = d.stop.min_samples > 0;
    const auto fallback = [&](const std::string& text) { return with_defaults ? text : std::string(); };
    const StopCriterion& c = d.stop;
    return option::grouped(
        measurement_group,
        {option::value("--min-samples", "N", "at least N timed samples", fallback(std::to_string(c.min_samples))),
         option::value("--max-samples", "N", "at most N samples", fallback(std::to_string(c.max_samples))),
         option::value("--min-time", "S", "the samples add up to S seconds before the noise is judged",
                       fallback(number(c.min_time_s))),
         option::value("--noise-target", "PCT",
                       "stop once the relative standard deviation is at most PCT %, or has settled (over the last " +
                           std::to_string(c.settle_window) + " samples within " + number(c.settle_band_pct) +
                           " % of its mean)",
                       fallback(number(c.noise_target_pct))),
         option::value("--time-limit", "S", "stop sampling after S seconds, once the minimum is in",
                       fallback(number(c.time_limit_s))),
         option::flag("--cold", std::string("flush the GPU's L2 cache before each sample (default: ") +
                                     (d.cold ? "cold" : "warm") + ")"),
         option::value("--throttle", "discard|keep",
                       "drop a sample taken while the GPU was throttled and take it again, or keep it flagged",
                       fallback(d.throttle == Throttle::keep ? "keep" : "discard")),
         option::flag("--print-criterion", "print these settings as JSON and exit"),
         option::renamed("--repeats", OptionKind::value, "--min-samples N (at least N samples, then the noise rule)")});
}

std::vector<OptionSpec> measure_option_specs() {
    MeasureOptions none;
    none.stop.min_samples = 0;  // no defaults in the help
    return measure_option_specs(none);
}

std::vector<OptionSpec> host_measure_option_specs(const MeasureOptions& defaults) {
    std::vector<OptionSpec> out;
    for (auto& s : measure_option_specs(defaults)) {
        if (s.name == "--cold" || s.name == "--throttle") continue;
        if (s.name == "--time-limit") {
            s.help = "stop the whole command after S seconds: the sampling ends there once the minimum is in, and "
                     "the command stops there with a message saying what it finished (exit status 3)";
            s.fallback = number(defaults.stop.time_limit_s) + " s of sampling per measurement, no limit on the command";
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OptionSpec> with_measure_options(std::vector<OptionSpec> own, const MeasureOptions& defaults) {
    for (auto& s : measure_option_specs(defaults)) own.push_back(std::move(s));
    return own;
}

MeasureOptions parse_measure_options(const Options& o, const MeasureOptions& defaults) {
    MeasureOptions m = defaults;
    StopCriterion& c = m.stop;
    c.min_samples = static_cast<int>(o.integer("--min-samples", c.min_samples, 1, 1000000));
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

std::string measure_options_help(const MeasureOptions& d) { return option_lines(measure_option_specs(d)); }

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

const std::vector<std::string>& host_timing_columns() {
    static const std::vector<std::string> columns = {"noise_pct", "samples", "stop_reason"};
    return columns;
}

std::vector<std::string> with_host_timing_columns(std::vector<std::string> own) {
    for (const auto& c : host_timing_columns()) own.push_back(c);
    return own;
}

std::vector<std::string> with_host_timing_values(std::vector<std::string> own, const Measurement& m, std::size_t i) {
    (void)m.samples.at(i);
    own.push_back(csv_number(m.noise_pct));
    own.push_back(std::to_string(m.samples.size()));
    own.push_back(m.stop_reason);
    return own;
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
