/// @file app_run.hpp
/// @brief What every application command of the `ryoo` program shares (app_commands.cpp and
/// borrowed_apps.cpp): its options, the CSV of kind app_bench, the stop rules of the CPU and GPU
/// measurements, the device, its stream and its clock monitor.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/csv.hpp"
#include "harness/device_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "ryoo/app/commands.hpp"

namespace ryoo::app {

/// The parts of an application a run can time.
inline const std::vector<std::string> all_parts = {"kernel", "application", "transfer"};

/// What every application command shares: its options, the CSV, the stop rules, the device and its clock.
class AppRun {
public:
    /// Reads the command @p command's options from @p args: its own (@p own), the shared ones and the
    /// measurement options.
    AppRun(const Args& args, const std::string& command, std::vector<harness::OptionSpec> own)
        : o_(args, specs(std::move(own)), command), command_(command) {}

    /// The parsed options.
    const harness::Options& options() const { return o_; }
    /// Whether --help was given.
    bool help() const { return o_.has("--help"); }

    /// Prints the command's help followed by the shared options and the measurement options.
    void print_help(const std::string& text) const {
        std::puts(text.c_str());
        std::puts("  shared options:\n"
                  "    --size small|large     the input (each command's help gives both)\n"
                  "    --variants all|a,b,... the GPU variants to check and time\n"
                  "    --parts kernel,application,transfer   the GPU parts to time (default: all three)\n"
                  "    --cpu-samples N        timed runs of the single-thread CPU baseline (default 3; 0: the CPU\n"
                  "                           result is computed once, untimed, for the checks)\n"
                  "    --experiment NAME --csv FILE   one CSV row per kept sample");
        std::fputs(harness::measure_options_help(gpu_defaults()).c_str(), stdout);
    }

    /// Reads the shared options; call after the command has read its own (so that a bad option of either
    /// kind fails before any work). @p all: the registered variant names.
    void start(const std::vector<std::string>& all) {
        measure_ = harness::parse_measure_options(o_, gpu_defaults());
        variants_ = split_names(o_.text("--variants", "all"), all);
        for (const auto& v : variants_)
            if (std::find(all.begin(), all.end(), v) == all.end())
                throw o_.error("--variants", "unknown variant '" + v + "'; the valid names are: " + join(all));
        parts_ = o_.choices("--parts", all_parts, "kernel,application,transfer");
        cpu_samples_ = static_cast<int>(o_.integer("--cpu-samples", 3, 0, 100));
        cpu_.stop.min_samples = cpu_.stop.max_samples = std::max(cpu_samples_, 1);
        cpu_.stop.time_limit_s = 3600;
        cpu_.stop.min_time_s = 0;
        if (o_.has("--csv")) harness::check_outputs(command_, {}, {{"--csv", o_.text("--csv")}});
    }

    /// Opens the CSV (after the inputs are known to be valid) and reports the device.
    void open(const std::string& application) {
        application_ = application;
        int device = 0;
        harness::check(cudaGetDevice(&device), "read the current device");
        cudaDeviceProp p{};
        harness::check(cudaGetDeviceProperties(&p, device), "query the device");
        std::printf("GPU: %s (%d SMs)\n", p.name, p.multiProcessorCount);
        monitor_.emplace(harness::current_pci_bus_id());
        stream_.emplace();
        if (o_.has("--csv"))
            csv_.emplace(o_.require("--csv"),
                         harness::with_timing_columns({"experiment", "application", "variant", "size", "parameter", "part",
                                                       "repeat", "ms", "work", "work_unit", "rate", "valid", "check"}));
    }

    /// The GPU variants to check and time (after start()).
    const std::vector<std::string>& variants() const { return variants_; }
    /// Whether the run times @p part (kernel, application or transfer).
    bool times(const std::string& part) const { return std::find(parts_.begin(), parts_.end(), part) != parts_.end(); }
    /// Timed runs of the CPU baseline (0: computed once, untimed).
    int cpu_samples() const { return cpu_samples_; }
    /// The GPU measurement rule.
    const harness::MeasureOptions& gpu() const { return measure_; }
    /// The CPU measurement rule (exactly cpu_samples() samples).
    const harness::MeasureOptions& cpu() const { return cpu_; }
    /// The device's clock monitor (after open()).
    harness::ClockMonitor& monitor() { return *monitor_; }
    /// The run's stream (after open()).
    cudaStream_t stream() const { return stream_->get(); }
    /// The --size given (small by default).
    std::string size() const { return o_.text("--size", "small"); }

    /// Prints a measurement and writes its rows. @p work: units of work of one sample; rate = work / ms / 1e6.
    void record(const std::string& variant, const std::string& parameter, const std::string& part, const harness::Measurement& m,
                double work, const std::string& unit, bool valid, const std::string& checked) {
        const double median = m.summary().median;
        std::printf("%-24s %-10s %-12s %-11s %11.4f ms  %10.4g G%s/s  %s\n", variant.c_str(), parameter.c_str(), part.c_str(),
                    size().c_str(), median, work / median / 1e6, unit.c_str(), valid ? checked.c_str() : "WRONG");
        std::fflush(stdout);
        if (!valid) ++failures_;
        if (!csv_) return;
        for (std::size_t i = 0; i < m.samples.size(); ++i) {
            const double ms = m.samples[i].ms;
            csv_->row(harness::with_timing_values({o_.text("--experiment", command_.substr(5)), application_, variant, size(), parameter,
                                                   part, std::to_string(i), harness::csv_number(ms), harness::csv_number(work), unit,
                                                   harness::csv_number(work / ms / 1e6), valid ? "true" : "false", checked},
                                                  m, i));
        }
    }
    /// Counts a failed check of a variant that is then not timed.
    void failed(const std::string& variant, const std::string& what) {
        std::fprintf(stderr, "%s: %s: %s\n", command_.c_str(), variant.c_str(), what.c_str());
        ++failures_;
    }
    /// The process's exit status: 1 when a check failed, else 0.
    int finish() const {
        if (failures_) std::fprintf(stderr, "%s: %d check(s) failed\n", command_.c_str(), failures_);
        return failures_ ? 1 : 0;
    }

private:
    static std::vector<harness::OptionSpec> specs(std::vector<harness::OptionSpec> own) {
        for (const char* name : {"--size", "--variants", "--parts", "--cpu-samples", "--csv", "--experiment"}) own.push_back({name});
        own.push_back({"--help", harness::OptionKind::flag});
        for (auto& s : harness::measure_option_specs()) own.push_back(std::move(s));
        return own;
    }
    static harness::MeasureOptions gpu_defaults() {
        harness::MeasureOptions d;
        d.stop.min_samples = 5;
        d.stop.max_samples = 50;
        d.stop.time_limit_s = 2.0;
        return d;
    }
    static std::string join(const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    }

    harness::Options o_;
    std::string command_, application_;
    harness::MeasureOptions measure_, cpu_;
    std::vector<std::string> variants_, parts_;
    int cpu_samples_ = 3;
    std::optional<harness::ClockMonitor> monitor_;
    std::optional<harness::CsvAppender> csv_;
    std::optional<harness::Stream> stream_;  // created by open(), after the options are checked
    int failures_ = 0;
};

/// Times @p work on one CPU thread under the run's CPU rule (the samples the command was asked for).
inline harness::Measurement time_cpu(AppRun& run, const std::function<void()>& work) {
    return harness::measure_host(run.cpu(), work);
}

/// Milliseconds between two events recorded around @p work on @p stream.
inline double event_ms(cudaStream_t stream, const std::function<void()>& work) {
    harness::Event start, stop;
    start.record(stream);
    work();
    stop.record(stream);
    harness::check(cudaStreamSynchronize(stream), "wait for the timed work");
    return stop.since(start);
}

}  // namespace ryoo::app
