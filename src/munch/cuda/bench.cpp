// munch variants, munch bench: the GPU variants of the convolution and the rolling ball, timed after
// their output was checked against the CPU reference of the same input.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "harness/check.hpp"
#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "harness/sampling.hpp"
#include "munch/app/commands.hpp"
#include "munch/check/reference.hpp"
#include "munch/cuda/device.hpp"
#include "munch/fft_sizes.hpp"
#include "munch/inputs.hpp"
#include "munch/variants.hpp"

namespace munch::app {

namespace {

const std::vector<std::string> gpu_columns = {
    "experiment", "computation", "variant", "signal", "filter", "repeat", "kernel_ms", "total_ms", "valid", "max_abs_err",
    "tolerance", "checked", "gflops", "gbps", "sm_clock_mhz", "throttled", "noise_pct", "samples", "stop_reason"};

std::vector<std::string> names_of(const std::vector<gpu::VariantEntry>& entries) {
    std::vector<std::string> names;
    for (const auto& e : entries) names.push_back(e.name);
    return names;
}

const gpu::VariantEntry& entry_named(const std::vector<gpu::VariantEntry>& entries, const std::string& name) {
    for (const auto& e : entries)
        if (e.name == name) return e;
    throw std::invalid_argument("no variant " + name);
}

// The work of one run for the roofline: the direct method's operations (2 per tap and output for the
// convolution, 2 per tap and kept output and pass for the rolling ball, counting the subtraction or
// addition and the comparison), and the least traffic (input, taps, output once each).
double useful_operations(bool conv, double n, double w) { return conv ? 2.0 * n * w : 2.0 * 2.0 * n * w; }
double least_bytes(bool conv, double n, double w) { return 4.0 * (conv ? n + w + (n + w - 1) : n + w + n); }

}  // namespace

int command_variants(const Args& args) {
    const harness::Options o(args, {}, "munch variants");
    const auto d = current_device();
    std::printf("GPU: %s (%d SMs)\n", d.name.c_str(), d.sm_count);
    for (const auto& e : gpu::convolution_variants()) std::printf("convolution   %-20s %s\n", e.name.c_str(), e.description.c_str());
    for (const auto& e : gpu::rolling_ball_variants()) std::printf("rolling-ball  %-20s %s\n", e.name.c_str(), e.description.c_str());
    return 0;
}

int command_bench(const Args& args) {
    const harness::Options o(args,
                             {{"--computation"}, {"--variants"}, {"--signal"}, {"--filter"}, {"--repeats"}, {"--max-samples"},
                              {"--time-limit"}, {"--experiment"}, {"--csv"}, {"--with-overhead", harness::OptionKind::flag}},
                             "munch bench");
    const auto computation = o.choice("--computation", {"convolution", "rolling-ball"}, "convolution");
    const bool conv = computation == "convolution";
    const auto entries = conv ? gpu::convolution_variants() : gpu::rolling_ball_variants();
    const auto variants = o.choices("--variants", names_of(entries), names_of(entries).front());
    const auto n = static_cast<std::size_t>(o.integer("--signal", 100000, 1, 400'000'000));
    const auto w = static_cast<std::size_t>(o.integer("--filter", 999, 1, 10'000'000));
    const int repeats = static_cast<int>(o.integer("--repeats", 5, 1, 1000));
    const int max_samples = static_cast<int>(o.integer("--max-samples", std::max(repeats, 20), repeats, 1000));
    const double limit = o.real("--time-limit", 2.0);
    if (!(limit > 0)) throw o.error("--time-limit", "must be a positive number of seconds, found '" + o.text("--time-limit") + "'");
    const bool with_overhead = o.has("--with-overhead");
    const auto csv_path = o.require("--csv");
    harness::check_outputs("munch bench", {}, {{"--csv", csv_path}});
    const auto experiment = o.text("--experiment", "bench");
    if (!conv && w % 2 == 0) throw o.error("--filter", "a rolling ball's width must be odd, got " + std::to_string(w));
    if (!conv && !check::rolling_ball_checkable(n, w))
        throw o.error("--filter", "no CPU reference of a rolling ball of " + std::to_string(w) + " over " + std::to_string(n) +
                                      " samples fits the checking budget: such a run could not be checked");

    // The device before the CPU reference, which only the GPU's check needs (seconds for long signals).
    (void)current_device();
    // Inputs and the CPU reference first: a bad size fails before any GPU work.
    const auto signal = conv ? convolution_signal(n) : baseline_signal(n);
    const auto taps = conv ? convolution_filter(w) : ball_profile(w);
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::optional<check::ConvolutionReference> conv_ref;
    std::optional<check::RollingBallReference> rb_ref;
    if (conv) conv_ref.emplace(signal, taps, threads, 5e8);
    else rb_ref.emplace(signal, taps, threads);
    const double fft_tolerance = fft_error_bound(signal, taps, fft_size(n + w - 1));

    const auto device = current_device();
    harness::ClockMonitor monitor(device.pci_bus);
    harness::Stream stream;
    harness::CsvAppender csv(csv_path, gpu_columns);
    int failures = 0;
    for (const auto& name : variants) {
        const auto& entry = entry_named(entries, name);
        auto variant = entry.make();
        // [check-then-time-begin]
        variant->prepare(signal, taps, stream.get());
        variant->run(stream.get());  // warm-up, and the output that is checked
        harness::check(cudaStreamSynchronize(stream.get()), "finish the first run");
        const double tolerance = name == "cufft" ? fft_tolerance : 0.0;
        const auto verdict = conv ? conv_ref->check(variant->result(stream.get()), tolerance) : rb_ref->check(variant->result(stream.get()));
        if (!verdict.valid) {
            ++failures;
            std::fprintf(stderr, "munch bench: %s %s n=%zu w=%zu disagrees with the CPU: %s\n", computation.c_str(),
                         name.c_str(), n, w, verdict.first_failure.c_str());
        }
        // [check-then-time-end]
        harness::Sampling sampling({repeats, max_samples, 0.5, limit});
        std::vector<double> totals;
        std::vector<TimedSample> samples;
        do {
            if (with_overhead) {
                // The thesis's "GPU time with overhead": allocation, uploads, the run and the download.
                const auto start = std::chrono::steady_clock::now();
                auto fresh = entry.make();
                fresh->prepare(signal, taps, stream.get());
                const auto s = time_on_stream(stream.get(), monitor, [&] { fresh->run(stream.get()); });
                const auto out = fresh->result(stream.get());
                fresh.reset();
                harness::check(cudaDeviceSynchronize(), "finish the frees");
                totals.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
                samples.push_back(s);
            } else {
                samples.push_back(time_on_stream(stream.get(), monitor, [&] { variant->run(stream.get()); }));
            }
            sampling.add(samples.back().ms);
        } while (!sampling.done());
        const double ops = useful_operations(conv, static_cast<double>(n), static_cast<double>(w));
        const double bytes = least_bytes(conv, static_cast<double>(n), static_cast<double>(w));
        for (std::size_t r = 0; r < samples.size(); ++r) {
            const double ms = samples[r].ms;
            csv.row({experiment, computation, name, std::to_string(n), std::to_string(w), std::to_string(r), harness::csv_number(ms),
                     with_overhead ? harness::csv_number(totals[r]) : "", verdict.valid ? "true" : "false",
                     harness::csv_number(verdict.max_abs_err), harness::csv_number(verdict.tolerance), verdict.checked,
                     harness::csv_number(ops / ms / 1e6), harness::csv_number(bytes / ms / 1e6),
                     harness::csv_number(samples[r].clock.sm_clock_mhz), samples[r].clock.throttled ? "true" : "false",
                     harness::csv_number(sampling.noise_pct()), std::to_string(samples.size()), sampling.reason()});
        }
        std::vector<double> sorted = sampling.samples();
        std::sort(sorted.begin(), sorted.end());
        std::printf("%s %-20s n=%-9zu w=%-8zu %10.4g ms median  %8.1f GFLOP/s  %7.1f GB/s  checked %s%s\n", computation.c_str(),
                    name.c_str(), n, w, sorted[sorted.size() / 2], ops / sorted[sorted.size() / 2] / 1e6,
                    bytes / sorted[sorted.size() / 2] / 1e6, verdict.checked.c_str(), verdict.valid ? "" : "  INVALID");
    }
    return failures ? 1 : 0;
}

}  // namespace munch::app
