// munch bench-cpu: the CPU baselines, timed with the harness's sampling rule and checked.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "harness/sampling.hpp"
#include "munch/app/commands.hpp"
#include "munch/check/reference.hpp"
#include "munch/cpu/convolution.hpp"
#include "munch/cpu/rolling_ball.hpp"
#include "munch/inputs.hpp"

namespace munch::app {

namespace {

const std::vector<std::string> cpu_columns = {"experiment", "computation", "implementation", "threads", "signal", "filter",
                                              "repeat", "ms", "valid", "checked", "noise_pct", "samples", "stop_reason"};

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
    const harness::Options o(args,
                             {{"--computation"}, {"--implementations"}, {"--signal"}, {"--filter"}, {"--threads"},
                              {"--repeats"}, {"--experiment"}, {"--csv"}, {"--time-limit"},
                              {"--force", harness::OptionKind::flag}, {"--help", harness::OptionKind::flag}},
                             "munch bench-cpu");
    if (o.has("--help")) {
        std::puts("munch bench-cpu --csv FILE [--computation convolution|rolling-ball] [--implementations sequential,openmp]\n"
                  "                [--signal 1000] [--filter 9] [--threads N] [--repeats 3] [--time-limit 5]\n"
                  "                [--experiment NAME] [--force]\n"
                  "  times the CPU baselines with the sampling rule and checks their output; work above 1e13\n"
                  "  multiply-adds (signal x filter x repeats x implementations) needs --force");
        return 0;
    }
    const auto computation = o.choice("--computation", {"convolution", "rolling-ball"}, "convolution");
    const auto implementations = o.choices("--implementations", {"sequential", "openmp"}, "sequential,openmp");
    const auto n = static_cast<std::size_t>(o.integer("--signal", 1000, 1, 100'000'000));
    const auto w = static_cast<std::size_t>(o.integer("--filter", 9, 1, 10'000'000));
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = static_cast<int>(o.integer("--threads", hw, 1, 4096));
    const int repeats = static_cast<int>(o.integer("--repeats", 3, 1, 1000));
    const double limit = o.real("--time-limit", 5.0);
    if (!(limit > 0)) throw o.error("--time-limit", "must be a positive number of seconds, found '" + o.text("--time-limit") + "'");
    const auto csv_path = o.require("--csv");
    harness::check_outputs("munch bench-cpu", {}, {{"--csv", csv_path}});
    const auto experiment = o.text("--experiment", "bench_cpu");
    const bool conv = computation == "convolution";
    if (!conv && w % 2 == 0) throw o.error("--filter", "a rolling ball's width must be odd, got " + std::to_string(w));
    {
        // What the timing will cost, before the inputs are built: every sample is one pass of n x w.
        const double work = static_cast<double>(n) * static_cast<double>(w) * repeats * static_cast<double>(implementations.size());
        if (work > 1e10)  // seconds or more: say so before starting
            std::fprintf(stderr, "munch bench-cpu: about %.3g multiply-adds (--signal x --filter x --repeats x implementations)\n", work);
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
        harness::Sampling sampling({repeats, std::max(repeats, 10), 1.0, limit});
        std::vector<float> out;
        do {
            const auto start = std::chrono::steady_clock::now();
            if (conv) {
                if (t == 1) cpu::convolution_sequential(signal, taps, out);
                else cpu::convolution_openmp(signal, taps, out, t);
            } else {
                out = cpu::rolling_ball(signal, taps, t);
            }
            sampling.add(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        } while (!sampling.done());
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
        const auto& s = sampling.samples();
        for (std::size_t r = 0; r < s.size(); ++r)
            csv.row({experiment, computation, impl, std::to_string(t), std::to_string(n), std::to_string(w), std::to_string(r),
                     harness::csv_number(s[r]), valid ? "true" : "false", checked, harness::csv_number(sampling.noise_pct()),
                     std::to_string(s.size()), sampling.reason()});
        std::printf("%s %s n=%zu w=%zu threads=%d: %.4g ms (%zu samples, %s)%s\n", computation.c_str(), impl.c_str(), n, w, t,
                    s.back(), s.size(), sampling.reason().c_str(), valid ? "" : "  WRONG OUTPUT");
    }
    return failures ? 1 : 0;
}

}  // namespace munch::app
