// munch launch, pattern, copy, roofline: the limits of CUDA (the thesis's chapter 6), measured.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "harness/check.hpp"
#include "harness/csv.hpp"
#include "harness/device_budget_cuda.hpp"
#include "harness/options.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "munch/app/commands.hpp"
#include "munch/cuda/device.hpp"
#include "munch/limits.hpp"

namespace munch::app {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

std::string module_loading() {
    const char* v = std::getenv("CUDA_MODULE_LOADING");
    return v && *v ? v : "default";
}

namespace opt = harness::option;

/// This program's measurement defaults for the limits: 5 to 20 samples, 1 %, @p limit_s seconds.
harness::MeasureOptions limits_defaults(double limit_s) {
    harness::MeasureOptions d;
    d.stop.min_samples = 5;
    d.stop.max_samples = 20;
    d.stop.noise_target_pct = 1.0;
    d.stop.time_limit_s = limit_s;
    return d;
}

/// The CSV and experiment options every limits command has.
std::vector<harness::OptionSpec> output_options(const std::string& experiment) {
    auto csv = opt::csv("one row per sample");
    csv.required = true;
    return {csv, opt::value("--experiment", "NAME", "the experiment's name written in the CSV", experiment)};
}

/// @p a followed by @p b.
std::vector<harness::OptionSpec> joined(std::vector<harness::OptionSpec> a, const std::vector<harness::OptionSpec>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/// How a batch of launches is issued.
enum class LaunchMode { synchronised, asynchronous, graph };
const char* mode_name(LaunchMode m) {
    return m == LaunchMode::synchronised ? "synchronised" : m == LaunchMode::asynchronous ? "asynchronous" : "graph";
}

/// Times @p launches launches of @p launch_one on @p stream in each of the three modes, on the host's
/// clock: each launch followed by a synchronisation (minus the same loop of synchronisations alone when
/// @p subtract_bare_sync, the thesis's Algorithm 12), back to back with one synchronisation at the end, and
/// captured once into a CUDA graph that is replayed. Each sample is the batch's milliseconds; @p write gets
/// each mode's measurement.
void time_launch_modes(cudaStream_t stream, const harness::MeasureOptions& measure, harness::ClockMonitor& monitor,
                       int launches, bool subtract_bare_sync, const std::function<void(cudaStream_t)>& launch_one,
                       const std::function<void(LaunchMode, const harness::Measurement&)>& write) {
    const auto sync = [&] { harness::check(cudaStreamSynchronize(stream), "synchronise"); };
    write(LaunchMode::synchronised, harness::measure_self_timed(stream, measure, monitor, [&] {
              double bare = 0;
              if (subtract_bare_sync) {
                  const auto t = Clock::now();
                  for (int i = 0; i < launches; ++i) sync();
                  bare = ms_since(t);
              }
              const auto t = Clock::now();
              for (int i = 0; i < launches; ++i) {
                  launch_one(stream);
                  sync();
              }
              return ms_since(t) - bare;
          }));
    write(LaunchMode::asynchronous, harness::measure_wall(stream, measure, monitor, [&] {
              for (int i = 0; i < launches; ++i) launch_one(stream);
          }));
    const harness::Graph graph(stream, [&] {
        for (int i = 0; i < launches; ++i) launch_one(stream);
    });
    write(LaunchMode::graph, harness::measure_wall(stream, measure, monitor, [&] { graph.launch(stream); }));
}

std::string dims(dim3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y); }

}  // namespace

int command_launch(const Args& args) {
    const harness::MeasureOptions defaults = limits_defaults(5.0);
    harness::CommandHelp help;
    help.about = "The cost of launching an empty kernel, per launch: synchronised after each launch (minus the "
                 "synchronisations alone), back to back, and replayed from a CUDA graph, over the thesis's grids and "
                 "blocks. --first-only instead times the context's creation and the first two launches of a fresh "
                 "process (one sample each).";
    const harness::Options o(
        args,
        harness::with_measure_options(
            joined(output_options("launch"),
                   {opt::value("--launches", "N", "launches per sample", "2000"),
                    opt::flag("--first-only", "time the context's creation and the first two launches of this process "
                                              "(one sample each) and nothing else")}),
            defaults),
        "munch launch", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (o.has("--first-only") && o.has("--print-criterion")) {
        // One sample each, in a fresh process: the criterion says so rather than the engine's defaults.
        harness::MeasureOptions single = measure;
        single.stop.min_samples = single.stop.max_samples = 1;
        std::printf("%s\n", harness::criterion_json("munch launch --first-only", single,
                                                    "one sample per process of the context's creation and of the first "
                                                    "and second launch, host steady clock; a new process repeats it")
                                .c_str());
        return 0;
    }
    if (harness::print_criterion_if_asked(o, "munch launch", measure,
                                          "a batch of --launches empty launches, host steady clock"))
        return 0;
    const auto csv_path = o.require("--csv");
    const auto experiment = o.text("--experiment", "launch");
    const int launches = static_cast<int>(o.integer("--launches", 2000, 1, 10'000'000));
    harness::CsvAppender csv(csv_path, harness::with_timing_columns({"experiment", "mode", "grid", "block", "blocks",
                                                                    "threads_per_block", "launches", "module_loading",
                                                                    "repeat", "us_per_launch"}));
    const std::string loading = module_loading();
    if (o.has("--first-only")) {
        // A fresh process: the context's creation, then the first launch (which, with lazy loading, also
        // loads the module), then a second launch for comparison. One sample each: only a new process
        // can repeat them, and the runner starts several.
        const auto t0 = Clock::now();
        harness::check(cudaFree(nullptr), "create the context");
        const double init_ms = ms_since(t0);
        const dim3 grid(16, 16), block(16, 16);
        auto t1 = Clock::now();
        gpu::launch_empty(grid, block, nullptr);
        harness::check(cudaDeviceSynchronize(), "finish the first launch");
        const double first_ms = ms_since(t1);
        t1 = Clock::now();
        gpu::launch_empty(grid, block, nullptr);
        harness::check(cudaDeviceSynchronize(), "finish the second launch");
        const double second_ms = ms_since(t1);
        const auto row = [&](const char* mode, double ms) {
            harness::Measurement single;
            single.samples = {harness::Sample{ms, {}, 0}};
            single.stop_reason = "single";
            csv.row(harness::with_timing_values({experiment, mode, dims(grid), dims(block), "256", "256", "1", loading, "0",
                                                 harness::csv_number(ms * 1e3)},
                                                single, 0));
        };
        row("context_creation", init_ms);
        row("first_launch", first_ms);
        row("second_launch", second_ms);
        std::printf("context %.3f ms, first launch %.1f us, second launch %.1f us (CUDA_MODULE_LOADING=%s)\n", init_ms,
                    first_ms * 1e3, second_ms * 1e3, loading.c_str());
        return 0;
    }
    const auto device = current_device();
    harness::ClockMonitor monitor(device.pci_bus);
    harness::Stream stream;
    gpu::launch_empty(dim3(1), dim3(1), stream.get());  // load the module before anything is timed
    harness::check(cudaStreamSynchronize(stream.get()), "finish the warm-up launch");

    std::vector<std::pair<dim3, dim3>> configs;
    for (unsigned b : {1u, 4u, 8u, 16u, 22u, 32u}) configs.push_back({dim3(16, 16), dim3(b, b)});   // Fig. 6.1
    for (unsigned g : {1u, 4u, 64u, 127u, 256u}) configs.push_back({dim3(g, g), dim3(16, 16)});     // Fig. 6.2
    for (const auto& [grid, block] : configs) {
        // Per launch: the loop's time over the launches, in microseconds.
        time_launch_modes(stream.get(), measure, monitor, launches, true,
                          [&](cudaStream_t s) { gpu::launch_empty(grid, block, s); },
                          [&](LaunchMode mode, const harness::Measurement& m) {
                              for (std::size_t r = 0; r < m.samples.size(); ++r)
                                  csv.row(harness::with_timing_values(
                                      {experiment, mode_name(mode), dims(grid), dims(block),
                                       std::to_string(grid.x * grid.y), std::to_string(block.x * block.y),
                                       std::to_string(launches), loading, std::to_string(r),
                                       harness::csv_number(m.samples[r].ms * 1e3 / launches)},
                                      m, r));
                          });
        std::printf("grid %s block %s done\n", dims(grid).c_str(), dims(block).c_str());
    }
    return 0;
}

int command_pattern(const Args& args) {
    const harness::MeasureOptions defaults = limits_defaults(10.0);
    harness::CommandHelp help;
    help.about = "The likelihood thesis's launch pattern (a number of synchronised launches per evaluation, one "
                 "block of 256 threads per SM each) replayed with empty kernels, against asynchronous launches and a "
                 "CUDA graph.";
    const harness::Options o(
        args,
        harness::with_measure_options(
            joined(output_options("launch_pattern"),
                   {opt::value("--launches-per-evaluation", "N", "launches per evaluation", "22400")}),
            defaults),
        "munch pattern", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "munch pattern", measure,
                                          "one evaluation's launches, host steady clock"))
        return 0;
    const auto csv_path = o.require("--csv");
    const auto experiment = o.text("--experiment", "launch_pattern");
    const int launches = static_cast<int>(o.integer("--launches-per-evaluation", 22400, 1, 10'000'000));
    const auto device = current_device();
    harness::ClockMonitor monitor(device.pci_bus);
    harness::Stream stream;
    // One block per SM of 256 threads: an empty stand-in for a launch that fills the GPU once.
    const dim3 grid(static_cast<unsigned>(device.sm_count)), block(256);
    gpu::launch_empty(grid, block, stream.get());
    harness::check(cudaStreamSynchronize(stream.get()), "finish the warm-up launch");
    harness::CsvAppender csv(csv_path, harness::with_timing_columns(
                                           {"experiment", "mode", "launches", "repeat", "ms_per_evaluation", "us_per_launch"}));
    time_launch_modes(stream.get(), measure, monitor, launches, false,
                      [&](cudaStream_t s) { gpu::launch_empty(grid, block, s); },
                      [&](LaunchMode mode, const harness::Measurement& m) {
                          for (std::size_t r = 0; r < m.samples.size(); ++r) {
                              const double ms = m.samples[r].ms;
                              csv.row(harness::with_timing_values(
                                  {experiment, mode_name(mode), std::to_string(launches), std::to_string(r),
                                   harness::csv_number(ms), harness::csv_number(ms * 1e3 / launches)},
                                  m, r));
                          }
                      });
    std::printf("%d launches per evaluation replayed in three modes\n", launches);
    return 0;
}

int command_copy(const Args& args) {
    const harness::MeasureOptions defaults = limits_defaults(2.0);
    harness::CommandHelp help;
    help.about = "Copy bandwidth against size, in steps of 4x: pageable, pinned and mapped host memory to and from "
                 "the device, and device to device.";
    const harness::Options o(
        args,
        harness::with_measure_options(
            joined(output_options("copy_bandwidth"),
                   {opt::value("--min-bytes", "N", "the smallest copy, a multiple of 16", "1024"),
                    opt::value("--max-bytes", "N", "the largest copy", "268435456")}),
            defaults),
        "munch copy", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "munch copy", measure, "one copy, host steady clock")) return 0;
    const auto csv_path = o.require("--csv");
    const auto experiment = o.text("--experiment", "copy_bandwidth");
    const auto min_bytes = static_cast<std::size_t>(o.integer("--min-bytes", 1024, 16, 1LL << 34));
    const auto max_bytes = static_cast<std::size_t>(o.integer("--max-bytes", 1LL << 28, 16, 1LL << 34));
    if (max_bytes < min_bytes) throw o.error("--max-bytes", "smaller than --min-bytes");
    if (min_bytes % 16 != 0) throw o.error("--min-bytes", "must be a multiple of 16 (the mapped copies move 16-byte vectors)");
    const auto device = current_device();
    harness::ClockMonitor monitor(device.pci_bus);
    harness::Stream stream;
    harness::DevicePlan plan("munch copy up to " + harness::describe_bytes(max_bytes));
    plan.add<char>("the two device buffers", max_bytes, 2);
    harness::require_device_memory(plan, -1, "give a smaller --max-bytes, or free the device (other processes on it)");
    float *d_a = nullptr, *d_b = nullptr, *pinned = nullptr, *mapped = nullptr, *mapped_device = nullptr;
    harness::check(cudaMalloc(&d_a, max_bytes), "allocate a device buffer");
    harness::check(cudaMalloc(&d_b, max_bytes), "allocate a device buffer");
    harness::check(cudaMallocHost(&pinned, max_bytes), "allocate pinned host memory");
    harness::check(cudaHostAlloc(&mapped, max_bytes, cudaHostAllocMapped), "allocate mapped host memory");
    harness::check(cudaHostGetDevicePointer(&mapped_device, mapped, 0), "map host memory");
    std::vector<float> pageable(max_bytes / sizeof(float), 1.0f);
    std::memset(pinned, 0, max_bytes);
    std::memset(mapped, 0, max_bytes);
    harness::check(cudaMemset(d_a, 0, max_bytes), "clear a device buffer");
    harness::CsvAppender csv(csv_path, harness::with_timing_columns(
                                           {"experiment", "memory", "direction", "bytes", "repeat", "ms", "gb_per_s"}));
    struct Case {
        const char* memory;
        const char* direction;
        std::function<void(std::size_t)> copy;
    };
    const auto memcpy_case = [&](void* dst, const void* src, cudaMemcpyKind kind) {
        return [=, &stream](std::size_t bytes) {
            harness::check(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()), "copy");
        };
    };
    const std::vector<Case> cases = {
        {"pageable", "htod", memcpy_case(d_a, pageable.data(), cudaMemcpyHostToDevice)},
        {"pageable", "dtoh", memcpy_case(pageable.data(), d_a, cudaMemcpyDeviceToHost)},
        {"pinned", "htod", memcpy_case(d_a, pinned, cudaMemcpyHostToDevice)},
        {"pinned", "dtoh", memcpy_case(pinned, d_a, cudaMemcpyDeviceToHost)},
        // Mapped (zero-copy) memory: a kernel reads or writes the host buffer over the bus.
        {"mapped", "htod", [&](std::size_t bytes) { gpu::launch_stream_copy(mapped_device, d_a, bytes / 4, stream.get()); }},
        {"mapped", "dtoh", [&](std::size_t bytes) { gpu::launch_stream_copy(d_a, mapped_device, bytes / 4, stream.get()); }},
        {"device", "dtod", memcpy_case(d_b, d_a, cudaMemcpyDeviceToDevice)},
    };
    for (const auto& k : cases) {
        for (std::size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
            k.copy(bytes);  // warm-up
            harness::check(cudaStreamSynchronize(stream.get()), "finish a warm-up copy");
            // Wall time around each copy, as bandwidthTest times pageable copies (a pageable copy is staged by
            // the host, so events alone would miss part of it).
            const harness::Measurement m = harness::measure_wall(stream.get(), measure, monitor, [&] { k.copy(bytes); });
            for (std::size_t r = 0; r < m.samples.size(); ++r) {
                // Device to device moves the bytes twice through memory; the rate counts them once, as
                // bandwidthTest does.
                const double ms = m.samples[r].ms;
                csv.row(harness::with_timing_values({experiment, k.memory, k.direction, std::to_string(bytes),
                                                     std::to_string(r), harness::csv_number(ms),
                                                     harness::csv_number(static_cast<double>(bytes) / ms / 1e6)},
                                                    m, r));
            }
        }
        std::printf("%s %s done\n", k.memory, k.direction);
    }
    cudaFreeHost(mapped);
    cudaFreeHost(pinned);
    cudaFree(d_b);
    cudaFree(d_a);
    return 0;
}

int command_roofline(const Args& args) {
    const harness::MeasureOptions defaults = limits_defaults(10.0);
    harness::CommandHelp help;
    help.about = "The measured float and double multiply-add peaks and the streaming bandwidth of this GPU: the "
                 "roof of the roofline the thesis's kernels are set against.";
    const harness::Options o(args, harness::with_measure_options(output_options("roofline"), defaults), "munch roofline",
                             help);
    const harness::MeasureOptions options = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "munch roofline", options, "one peak or stream kernel, CUDA events")) return 0;
    const auto csv_path = o.require("--csv");
    const auto experiment = o.text("--experiment", "roofline");
    const auto device = current_device();
    harness::ClockMonitor monitor(device.pci_bus);
    harness::Stream stream;
    harness::CsvAppender csv(csv_path, harness::with_timing_columns({"experiment", "quantity", "unit", "repeat", "value", "ms"}));
    const std::size_t count = std::size_t{1} << 28;  // 1 GiB per stream buffer, far beyond the 50 MB L2
    {
        // Before the first peak is timed: the sinks of the peaks, then the two stream buffers.
        harness::DevicePlan plan("munch roofline");
        plan.add<float>("the FP32 sink", 1).add<double>("the FP64 sink", 1).add<float>("the stream buffers", count, 2);
        harness::require_device_memory(plan, -1, "free the device (other processes on it)");
    }
    float* f_sink = nullptr;
    double* d_sink = nullptr;
    harness::check(cudaMalloc(&f_sink, sizeof(float)), "allocate");
    harness::check(cudaMalloc(&d_sink, sizeof(double)), "allocate");
    const int blocks = device.sm_count * 8;  // 2048 threads per SM
    const auto measure = [&](const char* quantity, const char* unit, double amount, const std::function<void()>& work) {
        work();
        harness::check(cudaStreamSynchronize(stream.get()), "warm up");
        const harness::Measurement m = harness::measure(stream.get(), options, monitor, work);
        for (std::size_t r = 0; r < m.samples.size(); ++r)
            csv.row(harness::with_timing_values({experiment, quantity, unit, std::to_string(r),
                                                 harness::csv_number(amount / m.samples[r].ms / 1e6),
                                                 harness::csv_number(m.samples[r].ms)},
                                                m, r));
        std::printf("%s: %.1f %s (best sample)\n", quantity, amount / m.summary().min / 1e6, unit);
    };
    const int it32 = 2048, it64 = 1024;  // multiples of the unrolling
    const double threads = static_cast<double>(blocks) * gpu::peak_threads;
    measure("fp32_fma_peak", "GFLOP/s", threads * it32 * gpu::peak_chains * 2.0,
            [&] { gpu::launch_peak_fp32(blocks, it32, 1.0f, f_sink, stream.get()); });
    measure("fp64_fma_peak", "GFLOP/s", threads * it64 * gpu::peak_chains * 2.0,
            [&] { gpu::launch_peak_fp64(blocks, it64, 1.0, d_sink, stream.get()); });
    float *a = nullptr, *b = nullptr;
    harness::check(cudaMalloc(&a, count * sizeof(float)), "allocate a stream buffer");
    harness::check(cudaMalloc(&b, count * sizeof(float)), "allocate a stream buffer");
    harness::check(cudaMemset(a, 0, count * sizeof(float)), "clear");
    measure("stream_copy_bandwidth", "GB/s", 2.0 * count * sizeof(float), [&] { gpu::launch_stream_copy(a, b, count, stream.get()); });
    cudaFree(b);
    cudaFree(a);
    cudaFree(d_sink);
    cudaFree(f_sink);
    return 0;
}

}  // namespace munch::app
