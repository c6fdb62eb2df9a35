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
#include "harness/device_budget_cuda.hpp"
#include "harness/options.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/output_paths.hpp"
#include "munch/app/commands.hpp"
#include "munch/check/reference.hpp"
#include "munch/cuda/device.hpp"
#include "munch/fft_sizes.hpp"
#include "munch/inputs.hpp"
#include "munch/variants.hpp"

namespace munch::app {

namespace {

const std::vector<std::string> gpu_columns = harness::with_timing_columns(
    {"experiment", "computation", "variant", "signal", "filter", "repeat", "kernel_ms", "total_ms", "valid", "max_abs_err",
     "tolerance", "checked", "gflops", "gbps"});

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
    harness::CommandHelp help;
    help.about = "Lists the GPU variants of the convolution and of the rolling ball, one line each; the GPU is named "
                 "when there is one (none is needed).";
    const harness::Options o(args, {}, "munch variants", help);
    if (harness::have_gpu()) {
        const auto d = current_device();
        std::printf("GPU: %s (%d SMs)\n", d.name.c_str(), d.sm_count);
    } else {
        std::printf("GPU: none (the list needs none)\n");
    }
    for (const auto& e : gpu::convolution_variants()) std::printf("convolution   %-20s %s\n", e.name.c_str(), e.description.c_str());
    for (const auto& e : gpu::rolling_ball_variants()) std::printf("rolling-ball  %-20s %s\n", e.name.c_str(), e.description.c_str());
    return 0;
}

int command_bench(const Args& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.max_samples = 20;
    defaults.stop.time_limit_s = 2.0;
    auto csv_option = opt::csv("one row per sample");
    csv_option.required = true;
    harness::CommandHelp help;
    help.about = "Times GPU variants of the convolution or the rolling ball on one input, each variant's output "
                 "checked against the CPU reference first. Exit status 1 when a variant disagreed.";
    const harness::Options o(
        args,
        harness::with_measure_options(
            {opt::value("--computation", "convolution|rolling-ball", "what to compute", "convolution"),
             opt::value("--variants", "LIST", "comma-separated variants ('munch variants' lists them)",
                        "the computation's first"),
             opt::value("--signal", "N", "the signal's length", "100000"),
             opt::value("--filter", "N", "the filter's width (odd for the rolling ball)", "999"),
             opt::flag("--with-overhead", "also time each run with its allocation, uploads and download (the thesis's "
                                          "GPU time with overhead)"),
             opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "bench"), csv_option},
            defaults),
        "munch bench", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "munch bench", measure, "one run of the variant, CUDA events")) return 0;
    const auto computation = o.choice("--computation", {"convolution", "rolling-ball"}, "convolution");
    const bool conv = computation == "convolution";
    const auto entries = conv ? gpu::convolution_variants() : gpu::rolling_ball_variants();
    const auto variants = o.choices("--variants", names_of(entries), names_of(entries).front());
    const auto n = static_cast<std::size_t>(o.integer("--signal", 100000, 1, 400'000'000));
    const auto w = static_cast<std::size_t>(o.integer("--filter", 999, 1, 10'000'000));
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
    {
        // And its memory: each variant's arrays are freed before the next variant's are allocated (with
        // --with-overhead a fresh copy is prepared beside the checked one), so the largest must fit.
        harness::DevicePlan plan("munch bench (" + computation + " of " + std::to_string(n) + " samples, " +
                                 std::to_string(w) + " taps)");
        for (const auto& name : variants)
            plan.then(name).include(entry_named(entries, name).make()->plan(n, w), with_overhead ? 2 : 1);
        harness::require_device_memory(plan, -1, "give a shorter --signal or --filter, or free the device (other processes on it)");
    }
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
        std::vector<double> totals;  // with --with-overhead: one per sample taken, discarded ones too
        harness::Measurement m;
        if (with_overhead) {
            // The thesis's "GPU time with overhead": allocation, uploads, the run and the download, on the
            // host's clock; the run alone between events is the sample the stop rule judges.
            m = harness::measure_self_timed(stream.get(), measure, monitor, [&] {
                const auto start = std::chrono::steady_clock::now();
                auto fresh = entry.make();
                fresh->prepare(signal, taps, stream.get());
                harness::Event begin, end;
                begin.record(stream.get());
                fresh->run(stream.get());
                end.record(stream.get());
                harness::check(cudaStreamSynchronize(stream.get()), "wait for a timed run");
                const double run_ms = end.since(begin);
                const auto out = fresh->result(stream.get());
                fresh.reset();
                harness::check(cudaDeviceSynchronize(), "finish the frees");
                totals.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
                return run_ms;
            });
        } else {
            m = harness::measure(stream.get(), measure, monitor, [&] { variant->run(stream.get()); });
        }
        const double ops = useful_operations(conv, static_cast<double>(n), static_cast<double>(w));
        const double bytes = least_bytes(conv, static_cast<double>(n), static_cast<double>(w));
        for (std::size_t r = 0; r < m.samples.size(); ++r) {
            const double ms = m.samples[r].ms;
            const std::string total =
                with_overhead ? harness::csv_number(totals.at(static_cast<std::size_t>(m.samples[r].attempt))) : "";
            csv.row(harness::with_timing_values(
                {experiment, computation, name, std::to_string(n), std::to_string(w), std::to_string(r),
                 harness::csv_number(ms), total, verdict.valid ? "true" : "false",
                 harness::csv_number(verdict.max_abs_err), harness::csv_number(verdict.tolerance), verdict.checked,
                 harness::csv_number(ops / ms / 1e6), harness::csv_number(bytes / ms / 1e6)},
                m, r));
        }
        const double median = m.summary().median;
        std::printf("%s %-20s n=%-9zu w=%-8zu %10.4g ms median (%s)  %8.1f GFLOP/s  %7.1f GB/s  checked %s%s\n",
                    computation.c_str(), name.c_str(), n, w, median, m.cold ? "cold" : "warm", ops / median / 1e6,
                    bytes / median / 1e6, verdict.checked.c_str(), verdict.valid ? "" : "  INVALID");
    }
    return failures ? 1 : 0;
}

}  // namespace munch::app
