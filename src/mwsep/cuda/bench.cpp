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
#include "harness/csv.hpp"
#include "harness/statistics.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/commands.hpp"
#include "harness/green_context.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/stars.hpp"
#include "mwsep/cuda/variants.hpp"

namespace mwsep::cuda {
namespace {

const std::vector<std::string> columns = {
    "experiment", "variant",  "work_unit",     "repeat",        "threads_per_block", "blocks_per_launch",
    "register_cap", "star_layout", "sm_count",  "integral_ms",   "likelihood_ms",     "kernel_ms",
    "total_ms",   "points_per_second", "likelihood", "rel_diff_cpu", "valid"};

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
    int repeats = 5, sm_count = 0;
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
        else if (a == "--repeats") repeats = std::stoi(value());
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
                "  --repeats N               timed repeats after one warm-up (default 5)\n"
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
    if (repeats < 1) throw std::invalid_argument("mwsep bench: --repeats must be at least 1");
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

    std::printf("%-28s %10s %10s %10s %12s %10s\n", "variant", "median_ms", "min_ms", "max_ms", "points/s", "rel_diff");
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
        evaluate(setup, stars, v->name, run_device, launch, !aos);  // warm-up: module load, first allocations
        std::vector<double> kernel_ms;
        double worst = 0;
        for (int rep = 0; rep < repeats; ++rep) {
            const auto w0 = std::chrono::steady_clock::now();
            const GpuResult g = evaluate(setup, stars, v->name, run_device, launch, !aos);
            const double total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
            const double integral_ms = g.integral_seconds * 1e3, like_ms = g.likelihood_seconds * 1e3;
            const double diff = std::fabs(g.likelihood.likelihood - expected) / std::fabs(expected);
            // Full-size units: summation order alone moves the 11th digit (1e-10); single precision 1e-5.
            const bool valid = diff <= (v->kernels.double_precision ? 1e-10 : 1e-5);
            invalid += !valid;
            worst = std::max(worst, diff);
            kernel_ms.push_back(integral_ms + like_ms);
            if (csv)
                csv->row({experiment, v->name, work_unit, std::to_string(rep), std::to_string(launch.threads_per_block),
                          std::to_string(launch.blocks_per_launch), launch.register_cap ? "48" : "none",
                          aos ? "aos" : "soa", std::to_string(run_sms), harness::csv_number(integral_ms),
                          harness::csv_number(like_ms), harness::csv_number(integral_ms + like_ms),
                          harness::csv_number(total_ms), harness::csv_number(points / (integral_ms / 1e3)),
                          harness::csv_number(g.likelihood.likelihood), harness::csv_number(diff), valid ? "true" : "false"});
        }
        const auto s = harness::summarize(kernel_ms);
        std::printf("%-28s %10.3f %10.3f %10.3f %12.4g %10.2e\n", v->name.c_str(), s.median, s.min, s.max,
                    points / (s.median / 1e3), worst);
    }
    if (invalid) std::fprintf(stderr, "mwsep bench: %d timed runs disagreed with the CPU and are marked invalid\n", invalid);
    return invalid ? 1 : 0;
}

}  // namespace mwsep::cuda
