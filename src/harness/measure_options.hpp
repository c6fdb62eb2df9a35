/// @file measure_options.hpp
/// @brief The measurement options every timing command accepts, parsed once; the criterion each program
/// prints for the record (`--print-criterion`); and the timing columns every result row ends with.
///
/// Options: `--min-samples N --max-samples N --min-time S --noise-target PCT --time-limit S --cold
/// --throttle discard|keep --print-criterion`; the CPU commands take them without `--cold` and `--throttle`,
/// which concern a GPU. `--repeats N`, an older spelling, is refused naming `--min-samples N`.
#pragma once

#include <string>
#include <vector>

#include "harness/measure.hpp"
#include "harness/options.hpp"

namespace harness {

/// The option specs of the measurement options, to append to a command's own (their help names no default).
std::vector<OptionSpec> measure_option_specs();

/// The measurement options with @p defaults in their help, under the heading "measurement options".
std::vector<OptionSpec> measure_option_specs(const MeasureOptions& defaults);

/// The measurement options of a command that times the host only: measure_option_specs(@p defaults)
/// without `--cold` and `--throttle`; `--time-limit` bounds the whole command (Deadline, progress.hpp).
std::vector<OptionSpec> host_measure_option_specs(const MeasureOptions& defaults);

/// @p own followed by measure_option_specs(@p defaults).
std::vector<OptionSpec> with_measure_options(std::vector<OptionSpec> own, const MeasureOptions& defaults);

/// The measurement options of @p o, starting from the command's @p defaults; a minimum above the default
/// maximum raises the maximum. OptionError for a value out of range.
MeasureOptions parse_measure_options(const Options& o, const MeasureOptions& defaults);

/// The help lines of the measurement options with @p defaults.
std::string measure_options_help(const MeasureOptions& defaults);

/// The criterion as one JSON object (the command, every field of @p m, and @p timer: what the samples
/// time and with which clock), as `--print-criterion` prints it.
std::string criterion_json(const std::string& command, const MeasureOptions& m, const std::string& timer);

/// If @p o has `--print-criterion`: prints criterion_json to standard output and returns true (the command
/// then ends without further work).
bool print_criterion_if_asked(const Options& o, const std::string& command, const MeasureOptions& m,
                              const std::string& timer);

/// The timing columns every timed row ends with: sm_clock_mhz, throttled, noise_pct, samples, stop_reason,
/// cache (cold or warm), discarded_throttled.
const std::vector<std::string>& timing_columns();

/// The values of timing_columns() for sample @p i of @p m (an unmonitored clock: empty clock and
/// throttle fields).
std::vector<std::string> timing_values(const Measurement& m, std::size_t i);

/// The timing columns of a row timed on the host, where no GPU clock, throttling or cache applies:
/// noise_pct, samples, stop_reason.
const std::vector<std::string>& host_timing_columns();

/// @p own followed by host_timing_columns().
std::vector<std::string> with_host_timing_columns(std::vector<std::string> own);
/// @p own followed by the values of host_timing_columns() for sample @p i of @p m.
std::vector<std::string> with_host_timing_values(std::vector<std::string> own, const Measurement& m, std::size_t i);

/// @p own followed by timing_columns().
std::vector<std::string> with_timing_columns(std::vector<std::string> own);

/// @p own followed by timing_values(@p m, @p i).
std::vector<std::string> with_timing_values(std::vector<std::string> own, const Measurement& m, std::size_t i);

}  // namespace harness
