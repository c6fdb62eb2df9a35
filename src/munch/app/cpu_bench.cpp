// munch bench-cpu: the CPU baselines, timed with the harness's CPU measurement engine and checked.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/output_paths.hpp"
#include "harness/progress.hpp"
#include "munch/app/commands.hpp"
#include "munch/check/reference.hpp"
#include "munch/cpu/convolution.hpp"
#include "munch/cpu/rolling_ball.hpp"
#include "munch/inputs.hpp"

namespace munch::app {

namespace {

const std::vector<std::string> cpu_columns = harness::with_host_timing_columns(
    {"experiment", "computation", "implementation", "threads", "signal", "filter", "repeat", "ms", "valid", "checked"});

/// A rough rate of the CPU loops, multiply-adds (or comparisons) per second and thread, for the estimate.
constexpr double rate_per_thread = 1e9;

// The rolling ball has no cheap exact reference for long inputs; its timed output is checked for the
// defining properties of an opening that cost O(n): finite, and nowhere above the signal, up to the
// rounding of (x - h) + h (a few units in the last place of the larger of the two).
bool opening_plausible(const std::vector<float>& signal, const std::vector<float>& ball, const std::vector<float>& opened) {
    if (opened.size() != signal.size()) return false;
    const float height = *std::max_element(ball.begin(), ball.end());
    for (std::size_t i = 0; i < signal.size(); ++i) {
        const float slack = 4 * 5.96e-8f * (std::fabs(signal[i]) + std::fabs(height));
        if (!(opened[i] <= signal[i] + slack) || !std::isfinite(opened[i])) return false;
    }
    return true;
}

}  // namespace

int command_bench_cpu(const Args& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 10;
    defaults.stop.noise_target_pct = 1.0;
    defaults.stop.time_limit_s = 5.0;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--computation", "convolution|rolling-ball", "what to compute", "convolution"),
        opt::value("--variants", "LIST", "the implementations to time, comma-separated: sequential, openmp",
                   "sequential,openmp"),
        opt::renamed("--implementations", harness::OptionKind::value, "--variants LIST"),
        opt::value("--signal", "N", "the signal's length", "1000"),
        opt::value("--filter", "N", "the filter's width (odd for the rolling ball)", "9"),
        opt::value("--threads", "N", "threads of the OpenMP implementation", "all cores"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "bench_cpu"),
        opt::csv("one row per sample"),
        opt::flag("--force", "run work above the limit of 1e13 operations")};
    for (auto& s : harness::host_measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about = "Times the CPU convolution or rolling ball, sequential and with OpenMP, each output checked (the "
                 "convolution against its exact reference, the rolling ball for the properties of an opening). It "
                 "prints its estimate first and its progress while it runs; exit status 1 when an output was wrong.";
    const harness::Options o(args, specs, "munch bench-cpu", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "munch bench-cpu", measure, "one CPU run, host steady clock")) return 0;
    // A user's --time-limit bounds the whole command, counted from here.
    harness::Deadline deadline = o.has("--time-limit") ? harness::Deadline(measure.stop.time_limit_s) : harness::Deadline();
    const auto computation = o.choice("--computation", {"convolution", "rolling-ball"}, "convolution");
    const auto implementations = o.choices("--variants", {"sequential", "openmp"}, "sequential,openmp");
    const auto n = static_cast<std::size_t>(o.integer("--signal", 1000, 1, 100'000'000));
    const auto w = static_cast<std::size_t>(o.integer("--filter", 9, 1, 10'000'000));
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = static_cast<int>(o.integer("--threads", hw, 1, 4096));
    const std::string csv_path = o.text("--csv");
    if (o.has("--csv")) harness::check_outputs("munch bench-cpu", {}, {{"--csv", csv_path}});
    const auto experiment = o.text("--experiment", "bench_cpu");
    const bool conv = computation == "convolution";
    if (!conv && w % 2 == 0) throw o.error("--filter", "a rolling ball's width must be odd, got " + std::to_string(w));
    // One pass of n x w per sample (and per output check of the convolution's reference, on every core).
    const double pass = static_cast<double>(n) * static_cast<double>(w);
    {
        // What the timing will cost, before the inputs are built.
        const double work = pass * measure.stop.min_samples * static_cast<double>(implementations.size());
        double seconds = 0;
        for (const auto& impl : implementations)
            seconds += pass * measure.stop.min_samples / (rate_per_thread * (impl == "openmp" ? std::min(threads, hw) : 1));
        if (work > 1e10 || seconds > 5)  // seconds or more: say so before starting
            std::fprintf(stderr,
                         "munch bench-cpu: about %.3g multiply-adds (--signal x --filter x --min-samples x "
                         "implementations): about %s at %.0e per second and thread%s\n",
                         work, harness::duration_text(seconds).c_str(), rate_per_thread,
                         deadline.set() && seconds > deadline.limit_s() ? "; --time-limit stops it before" : "");
        if (work > 1e13 && !o.has("--force"))
            throw o.error("--filter", "with --signal " + std::to_string(n) + " asks for about " + harness::short_number(work) +
                                          " operations, above the limit of 1e13: lower them, or give --force");
    }

    const auto signal = conv ? convolution_signal(n) : baseline_signal(n);
    const auto taps = conv ? convolution_filter(w) : ball_profile(w);
    std::unique_ptr<harness::CsvAppender> csv;
    if (o.has("--csv")) csv = std::make_unique<harness::CsvAppender>(csv_path, cpu_columns);
    harness::ProgressBar progress("munch bench-cpu", true);
    const std::size_t planned = static_cast<std::size_t>(measure.stop.min_samples) * implementations.size();
    std::size_t samples_done = 0;
    std::string finished;
    int failures = 0;
    for (const auto& impl : implementations) {
        const int t = impl == "openmp" ? threads : 1;
        std::vector<float> out;
        const harness::Measurement m = harness::measure_host(measure, [&] {
            if (conv) {
                if (t == 1) cpu::convolution_sequential(signal, taps, out);
                else cpu::convolution_openmp(signal, taps, out, t);
            } else {
                out = cpu::rolling_ball(signal, taps, t);
            }
            ++samples_done;
            progress.update(samples_done, std::max(planned, samples_done));
        }, deadline);
        bool valid;
        std::string checked;
        if (conv) {
            // The exact reference at a sample of outputs (all of them for small inputs).
            const check::ConvolutionReference reference(signal, taps, hw, 2e8);
            const auto v = reference.check(out, 0.0);
            valid = v.valid;
            checked = v.checked;
        } else {
            valid = opening_plausible(signal, taps, out);
            checked = "opening<=signal";
        }
        failures += valid ? 0 : 1;
        const auto s = m.ms();
        for (std::size_t r = 0; csv && r < s.size(); ++r)
            csv->row(harness::with_host_timing_values({experiment, computation, impl, std::to_string(t), std::to_string(n),
                                                       std::to_string(w), std::to_string(r), harness::csv_number(s[r]),
                                                       valid ? "true" : "false", checked},
                                                      m, r));
        std::printf("%s %s n=%zu w=%zu threads=%d: %.4g ms median (%zu samples, %s)%s\n", computation.c_str(), impl.c_str(),
                    n, w, t, m.summary().median, s.size(), m.stop_reason.c_str(), valid ? "" : "  WRONG OUTPUT");
        std::fflush(stdout);
        finished += (finished.empty() ? "" : ", ") + impl;
        deadline.note(finished + (csv ? " (their rows are in the CSV)" : ""));
    }
    return failures ? 1 : 0;
}

}  // namespace munch::app
