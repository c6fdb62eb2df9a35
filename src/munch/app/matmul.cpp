// munch matmul: the thesis's chapter 3. Square float products on the CPU (its ikj loop, sequential and
// OpenMP) and, in the CUDA build, on the GPU (the SDK-style tiled kernel and cuBLAS SGEMM in FP32), the
// GPU ones timed for the kernel alone and with allocation and copies; every product checked against the
// double-precision product before it is timed.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "harness/csv.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "harness/progress.hpp"
#include "harness/subcommands.hpp"
#include "munch/app/commands.hpp"
#include "munch/cpu/matmul.hpp"

#ifdef MUNCH_WITH_CUDA
#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "harness/measure_cuda.hpp"
#include "munch/cuda/device.hpp"
#include "munch/matmul.hpp"
#endif

namespace munch::app {

namespace {

const std::vector<std::string> matmul_columns = harness::with_timing_columns(
    {"experiment", "implementation", "threads", "n", "timing", "repeat", "ms", "gflops", "valid", "max_err_ratio",
     "max_abs_err", "checked"});

const std::vector<std::string> cpu_names = {"ikj", "openmp"};
const std::vector<std::string> gpu_names = {"sdk-tiled-16", "cublas-sgemm-fp32"};

bool is_gpu(const std::string& name) { return std::find(gpu_names.begin(), gpu_names.end(), name) != gpu_names.end(); }

struct Row {
    std::string implementation;
    int threads;
    std::size_t n;
    std::string timing;
};

void write_rows(harness::CsvAppender& csv, const std::string& experiment, const Row& row, const harness::Measurement& m,
                const cpu::MatmulVerdict& v) {
    const double flops = 2.0 * static_cast<double>(row.n) * static_cast<double>(row.n) * static_cast<double>(row.n);
    const auto s = m.ms();
    for (std::size_t r = 0; r < s.size(); ++r)
        csv.row(harness::with_timing_values(
            {experiment, row.implementation, std::to_string(row.threads), std::to_string(row.n), row.timing, std::to_string(r),
             harness::csv_number(s[r]), harness::csv_number(flops / s[r] / 1e6), v.valid ? "true" : "false",
             harness::csv_number(v.max_ratio), harness::csv_number(v.max_abs_err), v.checked},
            m, r));
    std::printf("matmul %-18s n=%-6zu %-15s threads=%-3d %10.4g ms median %9.1f GFLOP/s (%zu samples, %s)  checked %s, "
                "error/bound %.3g%s\n",
                row.implementation.c_str(), row.n, row.timing.c_str(), row.threads, m.summary().median,
                flops / m.summary().median / 1e6, s.size(), m.stop_reason.c_str(), v.checked.c_str(), v.max_ratio,
                v.valid ? "" : "  INVALID");
}

}  // namespace

int command_matmul(const Args& args) {
    namespace opt = harness::option;
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 20;
    defaults.stop.time_limit_s = 2.0;
    auto csv_option = opt::csv("one row per sample");
    csv_option.required = true;
    auto sizes_option = opt::list("--sizes", "N", "the matrix orders, 1 to 16384 (--sizes 16 32 64)", "");
    sizes_option.required = true;
    harness::CommandHelp help;
    help.about = "Times square float matrix products (the thesis's chapter 3): the CPU's ikj loop, sequential and "
                 "OpenMP, and in the CUDA build the SDK-style tiled kernel and cuBLAS SGEMM (FP32), the GPU ones for "
                 "the kernel alone and with allocation and copies. Every product is checked against double precision "
                 "before it is timed; exit status 1 when one disagreed.";
    const harness::Options o(
        args,
        harness::with_measure_options(
            {opt::value("--variants", "LIST", "the implementations to time, comma-separated: ikj, openmp, sdk-tiled-16, "
                                              "cublas-sgemm-fp32",
                        "ikj,openmp"),
             opt::renamed("--implementations", harness::OptionKind::value, "--variants LIST"),
             sizes_option,
             opt::value("--threads", "N", "threads of the OpenMP product", "all cores"),
             opt::value("--timings", "LIST", "what the GPU samples time: kernel, with-transfers", "kernel,with-transfers"),
             opt::value("--check-budget", "M", "most multiply-adds of the double-precision check per product", "2e9"),
             opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "matmul"), csv_option},
            defaults),
        "munch matmul", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "munch matmul", measure,
                                          "one product: CPU on the host clock; GPU kernel between CUDA events, "
                                          "with transfers on the host clock"))
        return 0;
    std::vector<std::string> all = cpu_names;
    all.insert(all.end(), gpu_names.begin(), gpu_names.end());
    const auto implementations = o.choices("--variants", all, "ikj,openmp");
    const auto timings = o.choices("--timings", {"kernel", "with-transfers"}, "kernel,with-transfers");
    std::vector<std::size_t> sizes;
    for (const auto& text : o.list("--sizes")) {
        std::size_t used = 0;
        long long v = -1;
        try {
            v = std::stoll(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != text.size() || v < 1 || v > 16384)
            throw o.error("--sizes", "expected matrix orders from 1 to 16384, got '" + text + "'");
        sizes.push_back(static_cast<std::size_t>(v));
    }
    if (sizes.empty()) throw o.error("--sizes", "expected at least one matrix order (--sizes 16 32 64)");
    {
        // What the CPU products will cost, before they start: each sample (and the checked first product) is
        // n^3 multiply-adds, at a rough rate of 1e9 per second and thread for the ikj loop.
        double seconds = 0;
        for (const auto& impl : o.choices("--variants", {"ikj", "openmp", "sdk-tiled-16", "cublas-sgemm-fp32"}, "ikj,openmp")) {
            if (impl != "ikj" && impl != "openmp") continue;
            const double rate = 1e9 * (impl == "openmp" ? std::max(1u, std::thread::hardware_concurrency()) : 1u);
            for (const auto n : sizes) seconds += (measure.stop.min_samples + 1) * double(n) * double(n) * double(n) / rate;
        }
        if (seconds > 5)
            std::fprintf(stderr, "munch matmul: the CPU products take about %s or more (at 1e9 multiply-adds per second "
                                 "and thread)\n", harness::duration_text(seconds).c_str());
    }
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = static_cast<int>(o.integer("--threads", hw, 1, 4096));
    const double budget = o.real("--check-budget", 2e9);
    if (!(budget >= 1)) throw o.error("--check-budget", "expected a positive number of reference multiply-adds");
    const auto csv_path = o.require("--csv");
    harness::check_outputs("munch matmul", {}, {{"--csv", csv_path}});
    const auto experiment = o.text("--experiment", "matmul");
    const bool any_gpu = std::any_of(implementations.begin(), implementations.end(), is_gpu);
    if (measure.cold && !std::all_of(implementations.begin(), implementations.end(), is_gpu))
        throw o.error("--cold", "flushes a GPU's cache; the CPU implementations time the host only");
#ifndef MUNCH_WITH_CUDA
    if (any_gpu) throw o.error("--variants", std::string("sdk-tiled-16 and cublas-sgemm-fp32 ") + harness::needs_cuda_build);
#endif

    harness::CsvAppender csv(csv_path, matmul_columns);
    int failures = 0;
#ifdef MUNCH_WITH_CUDA
    std::unique_ptr<harness::ClockMonitor> monitor;
    std::unique_ptr<harness::Stream> stream;
    if (any_gpu) {
        monitor = std::make_unique<harness::ClockMonitor>(current_device().pci_bus);
        stream = std::make_unique<harness::Stream>();
        // Before any product: each order's arrays twice (the product with transfers allocates its own beside
        // the kept ones); an order's are freed before the next order's.
        harness::DevicePlan plan("munch matmul on the GPU");
        for (const std::size_t n : sizes) plan.then("order " + std::to_string(n)).include(gpu::matmul_plan(n), 2);
        harness::require_device_memory(plan, -1, "give smaller --sizes, or free the device (other processes on it)");
    }
#endif
    for (const std::size_t n : sizes) {
        const auto a = cpu::matmul_input(n, 1);
        const auto b = cpu::matmul_input(n, 2);
        for (const auto& impl : implementations) {
            std::vector<float> c;
            if (!is_gpu(impl)) {
                const int t = impl == "openmp" ? threads : 1;
                const auto run = [&] {
                    if (t == 1) cpu::matmul_ikj(a, b, c, n);
                    else cpu::matmul_openmp(a, b, c, n, t);
                };
                run();  // the product that is checked (and a warm-up)
                const auto verdict = cpu::check_matmul(a, b, c, n, hw, budget);
                if (!verdict.valid) {
                    ++failures;
                    std::fprintf(stderr, "munch matmul: %s n=%zu: %s\n", impl.c_str(), n, verdict.first_failure.c_str());
                }
                write_rows(csv, experiment, {impl, t, n, "compute"}, harness::measure_host(measure, run), verdict);
                continue;
            }
#ifdef MUNCH_WITH_CUDA
            const auto kind = impl == gpu_names[0] ? gpu::MatmulKind::sdk : gpu::MatmulKind::cublas;
            gpu::DeviceMatmul device(kind, n);
            device.upload(a, b, stream->get());
            // [matmul-check-then-time-begin]
            device.run(stream->get());
            c = device.download(stream->get());
            auto verdict = cpu::check_matmul(a, b, c, n, hw, budget);
            // The product with transfers is a second path (fresh arrays, pageable copies): checked too.
            if (verdict.valid) {
                const auto again = gpu::matmul_with_transfers(kind, a, b, n, stream->get());
                const auto second = cpu::check_matmul(a, b, again, n, hw, budget);
                if (!second.valid) verdict = second;
            }
            if (!verdict.valid) {
                ++failures;
                std::fprintf(stderr, "munch matmul: %s n=%zu disagrees with the double-precision product: %s\n", impl.c_str(), n,
                             verdict.first_failure.c_str());
            }
            // [matmul-check-then-time-end]
            for (const auto& timing : timings) {
                harness::Measurement m;
                if (timing == "kernel") {
                    m = harness::measure(stream->get(), measure, *monitor, [&] { device.run(stream->get()); });
                } else {
                    m = harness::measure_wall(stream->get(), measure, *monitor,
                                              [&] { (void)gpu::matmul_with_transfers(kind, a, b, n, stream->get()); });
                }
                write_rows(csv, experiment, {impl, 0, n, timing}, m, verdict);  // threads 0: not a CPU product
            }
#endif
        }
    }
    return failures ? 1 : 0;
}

}  // namespace munch::app
