// `mwsep bench`: times kernel variants the way the thesis did (integral plus likelihood kernel time with
// CUDA events, after a warm-up evaluation, several repeats), also measures each evaluation end to end,
// checks every timed likelihood against the CPU, and appends one CSV row per (variant, repeat).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "harness/json.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/csv.hpp"
#include "harness/sampling.hpp"
#include "harness/statistics.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/commands.hpp"
#include "harness/green_context.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/stars.hpp"
#include "mwsep/variant_table.hpp"

namespace mwsep::cuda {
namespace {

const std::vector<std::string> columns = {
    "experiment", "variant",  "work_unit",     "repeat",        "threads_per_block", "blocks_per_launch",
    "register_cap", "star_layout", "sm_count",  "integral_ms",   "likelihood_ms",     "kernel_ms",
    "total_ms",   "points_per_second", "likelihood", "rel_diff_cpu", "valid", "sm_clock_mhz", "throttled",
    "noise_pct",  "samples",  "stop_reason"};

/// Device facts for the provenance record.
void write_meta(const std::string& path, int device, const std::string& command) {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, device), "query the device");
    int driver = 0, runtime = 0, sm_clock = 0, mem_clock = 0;
    check(cudaDriverGetVersion(&driver), "query the driver version");
    check(cudaRuntimeGetVersion(&runtime), "query the runtime version");
    cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, device);
    cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, device);
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
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
}

}  // namespace

int command_bench(const std::vector<std::string>& args) {
    std::string astronomy, stars_path, csv_path, meta_path, work_unit, experiment = "bench", list = "all";
    int sm_count = 0;
    harness::StopCriterion stop;
    double expected = NAN;
    LaunchOptions launch;
    bool aos = false, all_devices = false;
    std::string command = "mwsep bench";
    for (const auto& a : args) command += " " + a;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw std::invalid_argument("mwsep bench: " + args[i] + " needs a value");
            return args[++i];
        };
        const std::string& a = args[i];
        if (a == "-a") astronomy = value();
        else if (a == "-s") stars_path = value();
        else if (a == "--csv") csv_path = value();
        else if (a == "--meta") meta_path = value();
        else if (a == "--work-unit") work_unit = value();
        else if (a == "--experiment") experiment = value();
        else if (a == "--variants") list = value();
        else if (a == "--repeats") stop.min_samples = std::stoi(value());
        else if (a == "--max-samples") stop.max_samples = std::stoi(value());
        else if (a == "--noise-target") stop.noise_target_pct = std::stod(value());
        else if (a == "--time-limit") stop.time_limit_s = std::stod(value());
        else if (a == "--expect") expected = std::stod(value());
        else if (a == "--sm-count") sm_count = std::stoi(value());
        else if (a == "--threads-per-block") launch.threads_per_block = std::stoi(value());
        else if (a == "--blocks-per-launch") launch.blocks_per_launch = std::stoi(value());
        else if (a == "--register-cap") launch.register_cap = true;
        else if (a == "--aos") aos = true;
        else if (a == "--all-devices") all_devices = true;
        else if (a == "--slices") launch.slices = std::stoi(value());
        else if (a == "--help" || a == "-h") {
            std::printf(
                "usage: mwsep bench -a astronomy_parameters.txt -s stars.txt [options]\n"
                "  --variants LIST           comma-separated variant names, or all (default)\n"
                "  --repeats N               at least N timed samples after one warm-up (default 5)\n"
                "  --max-samples N           at most N samples (default 50)\n"
                "  --noise-target PCT        stop once the samples' relative standard deviation is <= PCT (default 0.5)\n"
                "  --time-limit S            stop once the samples add up to S seconds (default 30)\n"
                "  --expect L                the CPU likelihood to check against (default: computed here)\n"
                "  --threads-per-block N     (default 64)   --blocks-per-launch N (default 0: all blocks)\n"
                "  --register-cap            the 48-register builds   --aos  array-of-structures star layout\n"
                "  --sm-count N              run on N SMs only (CUDA green context; an emulation of a smaller GPU)\n"
                "  --all-devices             modern variants: split the mu range over every GPU (sm_count: their sum)\n"
                "  --slices N                modern variants: split each area into N slices (default: one per GPU)\n"
                "  --work-unit NAME --experiment NAME   labels written in every row\n"
                "  --csv FILE                append one row per repeat   --meta FILE  write the device record\n");
            return 0;
        } else throw std::invalid_argument("mwsep bench: unknown option '" + a + "'");
    }
    if (astronomy.empty() || stars_path.empty()) throw std::invalid_argument("mwsep bench: -a and -s are required");
    if (stop.max_samples < stop.min_samples) stop.max_samples = stop.min_samples;
    harness::Sampling{stop};  // refuses an impossible criterion before any work
    if (launch.slices < 0) throw std::invalid_argument("mwsep bench: --slices must be 0 or more");
    if (all_devices && sm_count > 0) throw std::invalid_argument("mwsep bench: --all-devices and --sm-count exclude each other");
    if (work_unit.empty()) work_unit = astronomy;
    const auto setup = geometry::make_setup(model::build_model(model::read_astronomy_parameters(astronomy)));
    const auto stars = model::read_stars(stars_path);
    if (std::isnan(expected)) {
        const auto integrals = cpu::integrate_fast(setup, 0);
        expected = cpu::likelihood_fast(setup, stars, integrals, 0).likelihood;
        std::fprintf(stderr, "mwsep bench: CPU check value %.17g\n", expected);
    }

    std::vector<const VariantInfo*> chosen;
    if (list == "all") {
        for (const auto& v : variants()) chosen.push_back(&v);
    } else {
        std::stringstream ss(list);
        std::string name;
        while (std::getline(ss, name, ',')) chosen.push_back(&find_variant(name));
    }
    const int device = select_device(-1, true);
    check(cudaSetDevice(device), "select the device");
    if (!meta_path.empty()) write_meta(meta_path, device, command);
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
    if (!csv_path.empty()) csv = std::make_unique<harness::CsvAppender>(csv_path, columns);

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
        const bool spread = all_devices && v->device_reduced;
        const int run_device = spread ? -1 : device;
        const int run_sms = spread ? all_sms : sms_used;
        evaluate(setup, stars, v->name, run_device, launch, !aos);  // warm-up: module load, first allocations
        // Samples until the stopping rule is met; each sample's SM clock and throttle state are read while
        // it runs (the selected GPU's; with --all-devices, that of the first).
        harness::Sampling sampling(stop);
        struct Row {
            double integral_ms, like_ms, total_ms, likelihood, diff;
            bool valid;
            harness::ClockReading clock;
        };
        std::vector<Row> rows;
        double worst = 0;
        do {
            clocks.start();
            const auto w0 = std::chrono::steady_clock::now();
            const GpuResult g = evaluate(setup, stars, v->name, run_device, launch, !aos);
            const double total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
            const harness::ClockReading clock = clocks.stop();
            const double integral_ms = g.integral_seconds * 1e3, like_ms = g.likelihood_seconds * 1e3;
            const double diff = std::fabs(g.likelihood.likelihood - expected) / std::fabs(expected);
            // Full-size units: summation order alone moves the 11th digit (1e-10); single precision 1e-5.
            const bool valid = diff <= (v->double_precision ? 1e-10 : 1e-5);
            invalid += !valid;
            worst = std::max(worst, diff);
            rows.push_back({integral_ms, like_ms, total_ms, g.likelihood.likelihood, diff, valid, clock});
            sampling.add(integral_ms + like_ms);
        } while (!sampling.done());
        const double noise = sampling.noise_pct();
        for (std::size_t rep = 0; csv && rep < rows.size(); ++rep) {
            const Row& r = rows[rep];
            csv->row({experiment, v->name, work_unit, std::to_string(rep), std::to_string(launch.threads_per_block),
                      std::to_string(launch.blocks_per_launch), launch.register_cap ? "48" : "none",
                      aos ? "aos" : "soa", std::to_string(run_sms), harness::csv_number(r.integral_ms),
                      harness::csv_number(r.like_ms), harness::csv_number(r.integral_ms + r.like_ms),
                      harness::csv_number(r.total_ms), harness::csv_number(points / (r.integral_ms / 1e3)),
                      harness::csv_number(r.likelihood), harness::csv_number(r.diff), r.valid ? "true" : "false",
                      r.clock.polls ? harness::csv_number(r.clock.sm_clock_mhz) : "", r.clock.polls ? (r.clock.throttled ? "true" : "false") : "",
                      harness::csv_number(noise), std::to_string(rows.size()), sampling.reason()});
        }
        const auto s = harness::summarize(sampling.samples());
        std::printf("%-28s %10.3f %10.3f %10.3f %12.4g %10.2e %7.2f%% %4zu %s\n", v->name.c_str(), s.median, s.min, s.max,
                    points / (s.median / 1e3), worst, noise, rows.size(), sampling.reason().c_str());
    }
    if (invalid) std::fprintf(stderr, "mwsep bench: %d timed runs disagreed with the CPU and are marked invalid\n", invalid);
    return invalid ? 1 : 0;
}

}  // namespace mwsep::cuda
