// `mwsep bench`: times kernel variants the way the thesis did (integral plus likelihood kernel time with
// CUDA events, after a warm-up evaluation) under the harness's measurement engine, also measures each
// evaluation end to end, checks every timed likelihood against the CPU, and appends one CSV row per kept
// sample with the variant's policy axes and the harness's timing columns.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "harness/json.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/atomic_file.hpp"
#include "harness/csv.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/statistics.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/commands.hpp"
#include "mwsep/cuda/devices.hpp"
#include "harness/green_context.hpp"
#include "mwsep/cuda/variants.hpp"

namespace mwsep::cuda {
namespace {

const std::vector<std::string> columns = harness::with_timing_columns({
    "experiment", "variant", "family", "memory", "divsqrt", "loop", "precision", "work_unit", "repeat",
    "threads_per_block", "blocks_per_launch", "register_cap", "star_layout", "sm_count", "integral_ms",
    "likelihood_ms", "kernel_ms", "total_ms", "points_per_second", "likelihood", "rel_diff_cpu", "valid", "blocks_per_sm"});

/// Device facts for the provenance record.
void write_meta(const std::string& path, int device, const std::string& command) {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, device), "query the device");
    int driver = 0, runtime = 0, sm_clock = 0, mem_clock = 0;
    check(cudaDriverGetVersion(&driver), "query the driver version");
    check(cudaRuntimeGetVersion(&runtime), "query the runtime version");
    check(cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, device), "query the SM clock");
    check(cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, device), "query the memory clock");
    // Whole or not at all, like every output file: a failed write keeps the previous record.
    harness::write_file_atomically(path, [&](std::ostream& out) {
        harness::JsonObject j(out);
        j.string("gpu_name", p.name)
            .integer("sm_count", p.multiProcessorCount)
            .string("compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor))
            .integer("sm_clock_max_khz", sm_clock)
            .integer("memory_clock_max_khz", mem_clock)
            .integer("memory_bytes", static_cast<long long>(p.totalGlobalMem))
            .string("cuda_driver_api_version", std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10))
            .string("cuda_version", std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10))
            .string("command", command);
        j.close();
        out << '\n';
    });
}

}  // namespace

TimedEvaluation time_one_evaluation(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                                    const VariantInfo& v, int device, const LaunchOptions& launch, bool soa,
                                    double expected) {
    TimedEvaluation t;
    const auto w0 = std::chrono::steady_clock::now();
    t.result = evaluate(setup, stars, v, device, launch, soa);
    t.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
    t.integral_ms = t.result.integral_seconds * 1e3;
    t.likelihood_ms = t.result.likelihood_seconds * 1e3;
    t.likelihood = t.result.likelihood.likelihood;
    t.rel_diff = std::fabs(t.likelihood - expected) / std::fabs(expected);
    // Full-size units: summation order alone moves the 11th digit (1e-10); single precision 1e-5.
    t.valid = t.rel_diff <= (v.kernels.double_precision ? 1e-10 : 1e-5);
    return t;
}

int run_bench(const BenchOptions& options, const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars) {
    LaunchOptions launch = options.launch;
    const bool aos = options.aos;
    const bool all_devices = options.all_devices;
    const harness::MeasureOptions& measure = options.measure;
    const int sm_count = options.sm_count;
    const std::string& experiment = options.experiment;
    const std::string& work_unit = options.work_unit;
    double expected = options.expected;
    {
        // Before the CPU check value and the first evaluation: every chosen variant's evaluation must fit its
        // devices (each evaluation frees what it allocated before the next one allocates).
        const int first = select_device(-1, true);
        LaunchOptions whole = options.launch;
        whole.keep_context = false;  // a green context, if asked for, runs on the same device
        for (const VariantInfo* v : options.variants) {
            const bool spread = options.all_devices && v->family->spreads_over_devices();
            require_evaluation_memory(setup, stars, *v, spread ? -1 : first, whole);
        }
    }
    if (std::isnan(expected)) {
        const auto integrals = cpu::integrate_fast(setup, 0);
        expected = cpu::likelihood_fast(setup, stars, integrals, 0).likelihood;
        std::fprintf(stderr, "mwsep bench: CPU check value %.17g\n", expected);
    }

    const std::vector<const VariantInfo*>& chosen = options.variants;
    const int device = select_device(-1, true);
    check(cudaSetDevice(device), "select the device");
    if (!options.meta_path.empty()) write_meta(options.meta_path, device, options.command);
    std::unique_ptr<harness::GreenContext> green;
    int sms_used = 0;
    {
        cudaDeviceProp p{};
        check(cudaGetDeviceProperties(&p, device), "query the device");
        sms_used = p.multiProcessorCount;
    }
    if (sm_count > 0) {
        check(cudaFree(nullptr), "initialise the primary context");
        green = std::make_unique<harness::GreenContext>(device, sm_count);
        sms_used = green->sm_count();
        launch.keep_context = true;
        std::fprintf(stderr, "mwsep bench: EMULATION: running on %d SMs of the GPU through a green context\n", sms_used);
    }

    double points = 0;
    for (const auto& a : setup.areas) points += static_cast<double>(a.cells()) * a.r.n_r * a.r.n_conv;
    std::unique_ptr<harness::CsvAppender> csv;
    if (!options.csv_path.empty()) csv = std::make_unique<harness::CsvAppender>(options.csv_path, columns);

    std::printf("%-28s %10s %10s %10s %12s %10s %8s %4s %s\n", "variant", "median_ms", "min_ms", "max_ms", "points/s",
                "rel_diff", "noise", "n", "stopped_by");
    char pci_bus_id[32] = {};
    check(cudaDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, device), "query the device's PCI bus id");
    harness::ClockMonitor clocks(pci_bus_id);
    if (!clocks.available())
        std::fprintf(stderr, "mwsep bench: SM clock not recorded: %s\n", clocks.unavailable_reason().c_str());
    int invalid = 0;
    int all_sms = 0, device_count = 0;
    check(cudaGetDeviceCount(&device_count), "count CUDA devices");
    for (int d = 0; d < device_count; ++d) {
        int sms = 0;
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d), "query a device");
        all_sms += sms;
    }
    for (const VariantInfo* v : chosen) {
        // --all-devices: the modern variants spread over every GPU (device -1); the others stay on one.
        const bool spread = all_devices && v->family->spreads_over_devices();
        const int run_device = spread ? -1 : device;
        const int run_sms = spread ? all_sms : sms_used;
        evaluate(setup, stars, *v, run_device, launch, !aos);  // warm-up: module load, first allocations
        // Samples under the engine's stop rule; each sample's SM clock and throttle state are read while it
        // runs (the selected GPU's; with --all-devices, that of the first). A cold sample starts after an
        // L2 flush of the selected GPU.
        std::vector<TimedEvaluation> taken;
        double worst = 0;
        const harness::Measurement m = harness::measure_self_timed(nullptr, measure, clocks, [&] {
            taken.push_back(time_one_evaluation(setup, stars, *v, run_device, launch, !aos, expected));
            if (green && !green->is_current())
                throw CudaError("the evaluation left the green context of " + std::to_string(green->sm_count()) +
                                " SMs: the sample ran on the whole GPU, not the emulated one");
            return taken.back().integral_ms + taken.back().likelihood_ms;
        });
        const VariantAxes& a = v->kernels.axes;
        for (std::size_t rep = 0; rep < m.samples.size(); ++rep) {
            const TimedEvaluation& r = taken.at(static_cast<std::size_t>(m.samples[rep].attempt));
            invalid += !r.valid;
            worst = std::max(worst, r.rel_diff);
            if (!csv) continue;
            csv->row(harness::with_timing_values(
                {experiment, v->name, a.family, a.memory, a.divsqrt, a.loop, a.precision, work_unit, std::to_string(rep),
                 std::to_string(launch.threads_per_block), std::to_string(launch.blocks_per_launch),
                 launch.register_cap ? "48" : "none", aos ? "aos" : "soa", std::to_string(run_sms),
                 harness::csv_number(r.integral_ms), harness::csv_number(r.likelihood_ms),
                 harness::csv_number(r.integral_ms + r.likelihood_ms), harness::csv_number(r.total_ms),
                 harness::csv_number(points / (r.integral_ms / 1e3)), harness::csv_number(r.likelihood),
                 harness::csv_number(r.rel_diff), r.valid ? "true" : "false", std::to_string(launch.blocks_per_sm)},
                m, rep));
        }
        const auto s = m.summary();
        std::printf("%-28s %10.3f %10.3f %10.3f %12.4g %10.2e %7.2f%% %4zu %s%s\n", v->name.c_str(), s.median, s.min, s.max,
                    points / (s.median / 1e3), worst, m.noise_pct, m.samples.size(), m.stop_reason.c_str(),
                    m.discarded_throttled ? (" (" + std::to_string(m.discarded_throttled) + " throttled dropped)").c_str() : "");
    }
    if (invalid) std::fprintf(stderr, "mwsep bench: %d timed runs disagreed with the CPU and are marked invalid\n", invalid);
    return invalid ? 1 : 0;
}

}  // namespace mwsep::cuda
