// munch bench-cpu: the CPU baselines, timed with the harness's CPU measurement engine and checked.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/output_paths.hpp"
#include "munch/app/commands.hpp"
#include "munch/check/reference.hpp"
#include "munch/cpu/convolution.hpp"
#include "munch/cpu/rolling_ball.hpp"
#include "munch/inputs.hpp"

namespace munch::app {

namespace {

const std::vector<std::string> cpu_columns = harness::with_timing_columns(
    {"experiment", "computation", "implementation", "threads", "signal", "filter", "repeat", "ms", "valid", "checked"});

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
    std::vector<harness::OptionSpec> specs = {{"--computation"}, {"--implementations"}, {"--signal"}, {"--filter"},
                                              {"--threads"}, {"--experiment"}, {"--csv"},
                                              {"--force", harness::OptionKind::flag}};
    for (auto& s : harness::measure_option_specs()) specs.push_back(std::move(s));
    const harness::Options o(args, specs, "munch bench-cpu");
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 10;
    defaults.stop.noise_target_pct = 1.0;
    defaults.stop.time_limit_s = 5.0;
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (measure.cold) throw o.error("--cold", "flushes a GPU's cache; bench-cpu times the host only");
    if (harness::print_criterion_if_asked(o, "munch bench-cpu", measure, "one CPU run, host steady clock")) return 0;
    const auto computation = o.choice("--computation", {"convolution", "rolling-ball"}, "convolution");
    const auto implementations = o.choices("--implementations", {"sequential", "openmp"}, "sequential,openmp");
    const auto n = static_cast<std::size_t>(o.integer("--signal", 1000, 1, 100'000'000));
    const auto w = static_cast<std::size_t>(o.integer("--filter", 9, 1, 10'000'000));
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = static_cast<int>(o.integer("--threads", hw, 1, 4096));
    const auto csv_path = o.require("--csv");
    harness::check_outputs("munch bench-cpu", {}, {{"--csv", csv_path}});
    const auto experiment = o.text("--experiment", "bench_cpu");
    const bool conv = computation == "convolution";
    if (!conv && w % 2 == 0) throw o.error("--filter", "a rolling ball's width must be odd, got " + std::to_string(w));
    {
        // What the timing will cost, before the inputs are built: every sample is one pass of n x w.
        const double work = static_cast<double>(n) * static_cast<double>(w) * measure.stop.min_samples *
                            static_cast<double>(implementations.size());
        if (work > 1e10)  // seconds or more: say so before starting
            std::fprintf(stderr, "munch bench-cpu: about %.3g multiply-adds (--signal x --filter x --min-samples x implementations)\n", work);
        if (work > 1e13 && !o.has("--force"))
            throw o.error("--filter", "with --signal " + std::to_string(n) + " asks for about " + harness::short_number(work) +
                                          " operations, above the limit of 1e13: lower them, or give --force");
    }

    const auto signal = conv ? convolution_signal(n) : baseline_signal(n);
    const auto taps = conv ? convolution_filter(w) : ball_profile(w);
    harness::CsvAppender csv(csv_path, cpu_columns);
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
        });
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
        for (std::size_t r = 0; r < s.size(); ++r)
            csv.row(harness::with_timing_values({experiment, computation, impl, std::to_string(t), std::to_string(n),
                                                 std::to_string(w), std::to_string(r), harness::csv_number(s[r]),
                                                 valid ? "true" : "false", checked},
                                                m, r));
        std::printf("%s %s n=%zu w=%zu threads=%d: %.4g ms median (%zu samples, %s)%s\n", computation.c_str(), impl.c_str(),
                    n, w, t, m.summary().median, s.size(), m.stop_reason.c_str(), valid ? "" : "  WRONG OUTPUT");
    }
    return failures ? 1 : 0;
}

}  // namespace munch::app
