// munch pipeline: the convolution with its transfers, as a caller who convolves signals every day would run it
// (persistent pinned buffers, the signal streamed in chunks so that copies and kernels overlap, optionally as
// one CUDA graph), beside the thesis's per-call procedure (allocate, copy, compute, copy back, free) and the
// copy floor of the same bytes, all in one run on one input. Every output is checked before anything is timed:
// the pipelined and the unchunked outputs must equal the direct variant's bit for bit (the same kernel per
// element), and that one the CPU reference.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "harness/check.hpp"
#include "harness/csv.hpp"
#include "harness/device_budget_cuda.hpp"
#include "harness/host_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "munch/app/commands.hpp"
#include "munch/check/reference.hpp"
#include "munch/cuda/device.hpp"
#include "munch/inputs.hpp"
#include "munch/pipeline.hpp"
#include "munch/variants.hpp"

namespace munch::app {

namespace {

/// The variant whose kernel the pipeline runs, and whose output it must reproduce bit for bit.
constexpr const char* reference_variant = "direct-constant-r16";

/// The modes, in the order they are timed.
const std::vector<std::string> all_modes = {"per-call", "unchunked-pinned", "pipelined", "pipelined-graph",
                                            "pipelined-pageable", "floor-serial", "floor-overlapped"};

const std::vector<std::string> pipeline_columns = harness::with_timing_columns(
    {"experiment", "mode", "signal", "filter", "chunks", "repeat", "ms", "bytes", "gb_per_s", "valid", "checked"});

const std::string help =
    "munch pipeline [--signal 10000000] [--filter 9] [--chunks 4,8,16,32] [--modes LIST] --csv FILE\n"
    "               [--experiment NAME] [measurement options]\n"
    "  The convolution of one signal with its transfers, every mode in one run:\n"
    "    per-call            the thesis's procedure with the direct kernel: allocate, pad and upload from\n"
    "                        pageable memory, compute, download, free (host clock)\n"
    "    unchunked-pinned    persistent pinned and device buffers: one upload, the kernels, one download\n"
    "    pipelined           the same buffers, the signal streamed in --chunks pieces on three streams\n"
    "                        (uploads, kernels, downloads overlapping), once per chunk count\n"
    "    pipelined-graph     the same captured once as a CUDA graph and replayed\n"
    "    pipelined-pageable  pipelined, with the caller's data in pageable memory (copied into and out of the\n"
    "                        pinned buffers on the host, inside the timing)\n"
    "    floor-serial        the copies alone (the signal up, the output down) one after the other\n"
    "    floor-overlapped    the copies alone, both directions at once: the floor the pipeline approaches\n"
    "  Before any timing the direct variant's output is checked against the CPU reference, and every pipelined\n"
    "  and unchunked output must equal it bit for bit (the same kernel computes every element). Rows: one per\n"
    "  timed sample; ms on the host's clock from the first copy to the last output on the host; bytes the\n"
    "  signal's and the output's (4 n + 4 (n + w - 1)); gb_per_s = bytes / ms.";

std::vector<std::size_t> chunk_counts(const harness::Options& o) {
    std::vector<std::size_t> out;
    const std::string text = o.text("--chunks", "4,8,16,32");
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        const long long v = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v < 1 || v > 4096)
            throw o.error("--chunks", "expected chunk counts from 1 to 4096 separated by commas, got '" + item + "'");
        out.push_back(static_cast<std::size_t>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace

int command_pipeline(const Args& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 5;
    defaults.stop.max_samples = 30;
    defaults.stop.time_limit_s = 2.0;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--signal", "N", "samples of the signal", "10000000"),
        opt::value("--filter", "W", "taps of the filter", "9"),
        opt::value("--chunks", "LIST", "comma-separated chunk counts of the pipelined modes (1 to 4096)", "4,8,16,32"),
        opt::value("--modes", "LIST", "comma-separated modes (see below)", "all seven"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "pipeline"),
        opt::required("--csv", "FILE", "append one row per timed sample (- for standard output)")};
    for (auto& s : harness::measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp about;
    about.about = "The convolution of one signal with its transfers, every mode in one run, each checked before "
                  "it is timed.";
    about.notes = help.substr(help.find("  The convolution of one signal"));
    const harness::Options o(args, specs, "munch pipeline", about);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "munch pipeline", measure,
                                          "one convolution with its transfers (or the copies alone), host clock"))
        return 0;
    const auto n = static_cast<std::size_t>(o.integer("--signal", 10'000'000, 1, 400'000'000));
    const auto w = static_cast<std::size_t>(o.integer("--filter", 9, 1, 100'000));
    const std::vector<std::size_t> chunks = chunk_counts(o);
    const std::vector<std::string> modes = o.choices("--modes", all_modes, "per-call,unchunked-pinned,pipelined,pipelined-graph,"
                                                                           "pipelined-pageable,floor-serial,floor-overlapped");
    const std::string csv_path = o.require("--csv");
    harness::check_outputs("munch pipeline", {}, {{"--csv", csv_path}});
    const std::string experiment = o.text("--experiment", "pipeline");
    // Host memory: the input and output as vectors, the pinned buffers of one pipeline and the reference.
    harness::check_host_bytes(o, "--signal", 4.0 * (3.0 * static_cast<double>(n) + 3.0 * static_cast<double>(n + w - 1)),
                              "the signal, the outputs and the pinned buffers");

    (void)current_device();
    {
        // One pipeline at a time beside the reference variant's arrays.
        harness::DevicePlan plan("munch pipeline (" + std::to_string(n) + " samples, " + std::to_string(w) + " taps)");
        plan.include(gpu::ConvolutionPipeline::plan(n, w), 1, "a pipeline: ");
        for (const auto& e : gpu::convolution_variants())
            if (e.name == reference_variant) plan.include(e.make()->plan(n, w), 2, "the direct variant: ");
        harness::require_device_memory(plan, -1, "give a shorter --signal, or free the device (other processes on it)");
    }
    const std::vector<float> signal = convolution_signal(n), taps = convolution_filter(w);
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const check::ConvolutionReference reference(signal, taps, threads, 5e8);
    std::printf("munch pipeline: %zu samples, %zu taps, %zu bytes up and down per call; %zu modes, chunk counts",
                n, w, 4 * (2 * n + w - 1), modes.size());
    for (std::size_t c : chunks) std::printf(" %zu", c);
    std::printf("\n");

    const auto device = current_device();
    harness::ClockMonitor monitor(device.pci_bus);
    harness::Stream stream;
    // The list is returned by value: kept here, so that the entry found in it outlives the loop.
    const std::vector<gpu::VariantEntry> variants = gpu::convolution_variants();
    const gpu::VariantEntry* entry = nullptr;
    for (const auto& e : variants)
        if (e.name == reference_variant) entry = &e;
    if (!entry) throw std::logic_error("munch pipeline: the direct variant is not registered");

    // [pipeline-check-begin]
    // The unpipelined output: the direct variant on the same input, checked against the CPU.
    std::vector<float> unpipelined;
    {
        auto v = entry->make();
        v->prepare(signal, taps, stream.get());
        v->run(stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "run the direct variant");
        unpipelined = v->result(stream.get());
    }
    const check::Verdict cpu = reference.check(unpipelined, 0.0);
    if (!cpu.valid) {
        std::fprintf(stderr, "munch pipeline: %s disagrees with the CPU: %s\n", reference_variant, cpu.first_failure.c_str());
        return 1;
    }
    const auto same_bits = [&](const float* out) {
        return std::memcmp(out, unpipelined.data(), sizeof(float) * unpipelined.size()) == 0;
    };
    // [pipeline-check-end]

    const double bytes = 4.0 * static_cast<double>(2 * n + w - 1);
    harness::CsvAppender csv(csv_path, pipeline_columns);
    int failures = 0;
    const auto record = [&](const std::string& mode, std::size_t chunk_count, const harness::Measurement& m, bool valid,
                            const std::string& checked) {
        for (std::size_t r = 0; r < m.samples.size(); ++r)
            csv.row(harness::with_timing_values({experiment, mode, std::to_string(n), std::to_string(w), std::to_string(chunk_count),
                                                 std::to_string(r), harness::csv_number(m.samples[r].ms), harness::csv_number(bytes),
                                                 harness::csv_number(bytes / m.samples[r].ms / 1e6), valid ? "true" : "false", checked},
                                                m, r));
        const double median = m.summary().median;
        std::printf("%-19s chunks %-5zu %10.4g ms median  %7.2f GB/s  %s%s\n", mode.c_str(), chunk_count, median,
                    bytes / median / 1e6, checked.c_str(), valid ? "" : "  INVALID");
        if (!valid) ++failures;
    };
    const std::string cpu_checked = "CPU " + cpu.checked;
    const auto wants = [&](const char* mode) { return std::find(modes.begin(), modes.end(), mode) != modes.end(); };

    if (wants("per-call")) {
        // The thesis's "GPU time with overhead", with the direct kernel: everything per call, on the host clock.
        const harness::Measurement m = harness::measure_wall(stream.get(), measure, monitor, [&] {
            auto fresh = entry->make();
            fresh->prepare(signal, taps, stream.get());
            fresh->run(stream.get());
            const auto out = fresh->result(stream.get());
            fresh.reset();
            harness::check(cudaDeviceSynchronize(), "finish the frees");
        });
        record("per-call", 0, m, true, cpu_checked);
    }
    const bool any_pipelined = wants("unchunked-pinned") || wants("pipelined") || wants("pipelined-graph") ||
                               wants("pipelined-pageable") || wants("floor-serial") || wants("floor-overlapped");
    if (any_pipelined) {
        // The resident buffers without chunks, and the copy floor, on a pipeline of the first chunk count.
        gpu::ConvolutionPipeline p(n, taps, {chunks.front(), false});
        std::copy(signal.begin(), signal.end(), p.input());
        p.run_unchunked();
        const bool valid = same_bits(p.output());
        const std::string checked = valid ? "bit-identical to " + std::string(reference_variant) + "; " + cpu_checked
                                          : "differs from " + std::string(reference_variant);
        if (wants("unchunked-pinned"))
            record("unchunked-pinned", 0, harness::measure_wall(p.stream(), measure, monitor, [&] { p.run_unchunked(); }), valid,
                   checked);
        if (wants("floor-serial"))
            record("floor-serial", 0, harness::measure_wall(p.stream(), measure, monitor, [&] { p.copy_floor(false); }), true,
                   "copies only");
        if (wants("floor-overlapped"))
            record("floor-overlapped", 0, harness::measure_wall(p.stream(), measure, monitor, [&] { p.copy_floor(true); }), true,
                   "copies only");
    }
    // [pipeline-time-begin]
    for (std::size_t c : chunks) {
        for (const bool graph : {false, true}) {
            const std::string mode = graph ? "pipelined-graph" : "pipelined";
            const bool pageable = !graph && wants("pipelined-pageable");
            if (!wants(mode.c_str()) && !pageable) continue;
            gpu::ConvolutionPipeline p(n, taps, {c, graph});
            std::copy(signal.begin(), signal.end(), p.input());
            p.run();  // the checked run
            const bool valid = same_bits(p.output());
            const std::string checked = (valid ? "bit-identical to " : "differs from ") + std::string(reference_variant) +
                                        " (" + std::to_string(p.chunks().size()) + " chunks); " + cpu_checked;
            if (!valid)
                std::fprintf(stderr, "munch pipeline: %s with %zu chunks differs from %s\n", mode.c_str(), c, reference_variant);
            if (wants(mode.c_str()))
                record(mode, p.chunks().size(), harness::measure_wall(p.stream(), measure, monitor, [&] { p.run(); }), valid, checked);
            if (pageable) {
                // The caller's data in pageable vectors: copied into the pinned input and out of the pinned output
                // on the host, inside the timing.
                std::vector<float> out(n + w - 1);
                const harness::Measurement m = harness::measure_wall(p.stream(), measure, monitor, [&] {
                    std::memcpy(p.input(), signal.data(), sizeof(float) * n);
                    p.run();
                    std::memcpy(out.data(), p.output(), sizeof(float) * out.size());
                });
                record("pipelined-pageable", p.chunks().size(), m, valid && same_bits(out.data()), checked);
            }
        }
    }
    // [pipeline-time-end]
    return failures ? 1 : 0;
}

}  // namespace munch::app
