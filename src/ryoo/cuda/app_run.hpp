/// @file app_run.hpp
/// @brief The one driver of the `ryoo` program's application commands (elimination, tpacf, rc5, pns, h264,
/// rpes, fdtd, lbm, fem, matmul-app, mri-q, mri-fhd, cp) and what the applications describe to it.
///
/// Every application command does the same thing in the same order; only the application's own parts
/// differ. The driver (run_application) owns the order:
///   1. the command's own options, then the shared ones and the measurement options (AppRun), all read
///      before any work; `--print-criterion` prints the measurement rule here and ends the command;
///   2. the application's checks that need the shared options (host memory, what the variants need);
///   3. the device, its stream and clock monitor, the CSV; the inputs (Application::prepare);
///   4. the single-thread CPU baseline, timed (CpuBaseline), or computed once untimed for the checks;
///   5. per GPU variant (and per parameter, where an application has several): its output checked against
///      the CPU's (Application::check_variant) before anything of it is timed; then its kernel, its whole
///      application and its transfers, each through the measurement engine (harness::measure*).
/// One CSV row per kept sample, kind app_bench of experiments/studies/ryoo.py. An application, in its own
/// file under apps/, is a class derived from Application: its options and inputs, its CPU reference, its
/// check, and the work each part times.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
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
    /// measurement options; `--help` prints the help generated from them, with @p about (harness::HelpRequested).
    AppRun(const Args& args, const std::string& command, std::vector<harness::OptionSpec> own, const std::string& about)
        : o_(args, specs(std::move(own), command), command, harness::CommandHelp{{}, about, {}}), command_(command) {}

    /// The parsed options.
    const harness::Options& options() const { return o_; }

    /// Reads the shared options; call after the command has read its own (so that a bad option of either
    /// kind fails before any work). @p all: the registered variant names. With `--print-criterion`: prints
    /// the measurement rule (no device touched, no file read or written) and returns false, and the command
    /// ends; else true.
    bool start(const std::vector<std::string>& all) {
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
        if (harness::print_criterion_if_asked(o_, command_, measure_, timer())) return false;
        if (o_.has("--csv")) harness::check_outputs(command_, {}, {{"--csv", o_.text("--csv")}});
        return true;
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
        memory_.emplace();
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
    /// The run's device memory, freed at its end (after open()).
    harness::DeviceMemory& memory() { return *memory_; }
    /// The --size given (small by default).
    std::string size() const { return o_.text("--size", "small"); }
    /// --size, checked: "small" or "large" (small by default).
    std::string size_choice() const { return o_.choice("--size", {"small", "large"}, "small"); }
    /// The integer option @p name within [@p min, @p max]; by default @p small or @p large by --size.
    long long sized(const std::string& name, long long small, long long large, long long min, long long max) const {
        return o_.integer(name, size_choice() == "small" ? small : large, min, max);
    }

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
    /// @p own, then the options every application command shares, then the measurement options.
    static std::vector<harness::OptionSpec> specs(std::vector<harness::OptionSpec> own, const std::string& command) {
        namespace opt = harness::option;
        for (auto& s : opt::grouped(
                 "shared options",
                 {opt::value("--size", "small|large", "which input; the options above give their values at both sizes",
                             "small"),
                  opt::value("--variants", "all|NAME,...",
                             "the GPU variants to check and time, comma-separated (`ryoo variants --names` lists them)", "all"),
                  opt::value("--parts", "LIST", "the GPU parts to time, comma-separated: kernel, application, transfer",
                             "kernel,application,transfer"),
                  opt::value("--cpu-samples", "N",
                             "timed runs of the single-thread CPU baseline, 0 to 100; 0: its result is computed once, "
                             "untimed, for the checks",
                             "3"),
                  opt::value("--experiment", "NAME", "the rows' experiment column", command.substr(command.find(' ') + 1)),
                  opt::csv("one row per kept sample")}))
            own.push_back(std::move(s));
        for (auto& s : harness::measure_option_specs(gpu_defaults())) own.push_back(std::move(s));
        return own;
    }
    static harness::MeasureOptions gpu_defaults() {
        harness::MeasureOptions d;
        d.stop.min_samples = 5;
        d.stop.max_samples = 50;
        d.stop.time_limit_s = 2.0;
        return d;
    }
    /// What each part's samples time, and the CPU baseline's rule (which is not the printed one).
    std::string timer() const {
        return "per GPU part: kernel, the application's kernels between CUDA events on its stream (where they start "
               "from a reset state, the reset outside the events); application, the whole application on the host's "
               "steady clock up to a synchronisation of the stream; transfer, its copies between CUDA events. The "
               "single-thread CPU baseline (--cpu-samples): " +
               (cpu_samples_ > 0 ? "exactly " + std::to_string(cpu_samples_) + " run(s) of each part on the host's steady clock"
                                 : std::string("not timed (its result computed once, for the checks)"));
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
    std::optional<harness::Stream> stream_;        // created by open(), after the options are checked
    std::optional<harness::DeviceMemory> memory_;  // likewise
    int failures_ = 0;
};

/// The verdict on the CPU baseline's two timed results: whether each row is valid, and the check's text.
struct CpuVerdict {
    bool kernel_valid = true;       ///< the kernel row
    bool application_valid = true;  ///< the application row
    std::string checked = "reference";  ///< the check's text, in both rows
};

/// The single-thread CPU baseline of an application: the work it times and how its result is judged.
struct CpuBaseline {
    std::string parameter;  ///< the rows' parameter column ("" or, say, "steps=20")
    double work = 0;        ///< units of work of one run (the CPU may run a share of the GPU's input)
    /// The computation alone (the CSV's "kernel" part); leaves the CPU's result for the checks.
    std::function<void()> kernel;
    /// Optional: reads the kernel's result after its samples, before the application runs.
    std::function<void()> after_kernel;
    /// The whole application on the host (the "application" part).
    std::function<void()> application;
    /// Optional, after both are timed: the rows' validity (default: both valid, "reference").
    std::function<CpuVerdict()> verdict;
    /// With --cpu-samples 0: the result the GPU is checked against, computed once and untimed.
    std::function<void()> untimed;
};

/// What the driver times of one GPU variant (and parameter) whose output passed the check.
struct GpuParts {
    std::string checked;  ///< the check's text, in the kernel and application rows
    double work = 0;      ///< units of work of one kernel or application sample
    /// The kernels on the run's stream, between CUDA events.
    std::function<void()> kernel;
    /// Optional: run before each kernel sample, outside its events (the state the kernels start from).
    std::function<void()> kernel_reset;
    /// The whole application, host steps included, on the host's clock up to a stream synchronisation.
    std::function<void()> application;
    /// Optional, after the application's samples: whether its rows are valid (default: valid).
    std::function<bool()> application_valid;
    /// The application's copies alone, between CUDA events.
    std::function<void()> transfer;
    double transfer_bytes = 0;  ///< the bytes those copies move
};

/// The outcome of one GPU variant's check: the parts to time, or why its output was wrong.
struct GpuCheck {
    std::string failure;  ///< empty: the output passed
    GpuParts parts;       ///< what to time (when it passed)

    /// A passed check, with what to time.
    static GpuCheck passed(GpuParts parts) { return {{}, std::move(parts)}; }
    /// A failed check, with what differs.
    static GpuCheck wrong(std::string what) { return {std::move(what), {}}; }
};

/// One application as the driver runs it. A derived class reads its own options in its constructor (from
/// AppRun::options(), before any work; it touches no device there) and keeps its inputs and device buffers
/// (allocated from AppRun::memory()) as members, so that the functions it hands to the driver may refer to
/// them.
class Application {
public:
    virtual ~Application() = default;
    /// The registered names of its GPU variants (--variants picks among them).
    virtual std::vector<std::string> variant_names() const = 0;
    /// After the shared options are read and before the device is touched: the checks that need them (the
    /// host memory the input takes, what the chosen variants need).
    virtual void check_before_work() {}
    /// After the device is opened: the inputs.
    virtual void prepare() {}
    /// The CPU baseline.
    virtual CpuBaseline cpu() = 0;
    /// After the CPU's result exists, timed or not: the checks of that result itself (run.failed() on a
    /// failure).
    virtual void check_reference() {}
    /// The device buffers and uploads every variant shares.
    virtual void upload() {}
    /// The parameters each variant runs with, each checked and timed on its own (default: one, "").
    virtual std::vector<std::string> parameters() const { return {""}; }
    /// Runs variant @p variant with @p parameter once and compares its output with the CPU's.
    virtual GpuCheck check_variant(const std::string& variant, const std::string& parameter) = 0;
};

/// The fixed description of one application command.
struct AppCommand {
    std::string command;                        ///< "ryoo elimination"
    std::string application;                    ///< the CSV's application column: "elimination"
    std::string unit;                           ///< the unit of its work: "B", "pairs", "keys", ...
    std::vector<harness::OptionSpec> options;   ///< its own options, declared (the shared ones are added)
    std::string about;                          ///< what it computes and times, for its help
};

/// Makes the application of a command from the run (whose options it reads).
using MakeApplication = std::function<std::unique_ptr<Application>(AppRun&)>;

/// The driver: runs the command @p what with @p args through the steps listed at the top of this file and
/// returns its exit status (1 when a check failed).
int run_application(const Args& args, const AppCommand& what, const MakeApplication& make);

/// run_application for an application class @p App constructed from the run alone.
template <class App>
int run_application(const Args& args, const AppCommand& what) {
    return run_application(args, what, [](AppRun& run) { return std::make_unique<App>(run); });
}

/// Times @p work on one CPU thread under the run's CPU rule (the samples the command was asked for).
inline harness::Measurement time_cpu(AppRun& run, const std::function<void()>& work) {
    return harness::measure_host(run.cpu(), work);
}

/// Runs @p count steps of a scheme that reads one buffer and writes the other (@p step(from, to)), starting
/// from @p a with @p b as the other; returns the buffer that holds the result.
template <class T, class Step>
T* ping_pong(T* a, T* b, int count, const Step& step) {
    for (int t = 0; t < count; ++t) {
        step(a, b);
        std::swap(a, b);
    }
    return a;
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
