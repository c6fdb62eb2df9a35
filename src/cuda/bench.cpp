// `mwsep bench`: times kernel variants the way the thesis did (integral plus likelihood kernel time,
// CUDA events, after a warm-up evaluation, several repeats), checks every timed likelihood against the CPU
// and appends one CSV row per (variant, repeat). Also reports quadrature points per second.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cpu/integrators.hpp"
#include "cuda/backend.hpp"
#include "cuda/commands.hpp"
#include "model/astronomy_parameters.hpp"
#include "model/build_model.hpp"
#include "model/stars.hpp"
#include "variant_table.hpp"

namespace mwsep::cuda {

int command_bench(const std::vector<std::string>& args) {
    std::string astronomy, stars_path, csv_path, work_unit, experiment = "bench", list = "all";
    int repeats = 5;
    LaunchOptions launch;
    bool aos = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw std::invalid_argument("mwsep bench: " + args[i] + " needs a value");
            return args[++i];
        };
        const std::string& a = args[i];
        if (a == "-a") astronomy = value();
        else if (a == "-s") stars_path = value();
        else if (a == "--csv") csv_path = value();
        else if (a == "--work-unit") work_unit = value();
        else if (a == "--experiment") experiment = value();
        else if (a == "--variants") list = value();
        else if (a == "--repeats") repeats = std::stoi(value());
        else if (a == "--threads-per-block") launch.threads_per_block = std::stoi(value());
        else if (a == "--blocks-per-launch") launch.blocks_per_launch = std::stoi(value());
        else if (a == "--register-cap") launch.register_cap = true;
        else if (a == "--aos") aos = true;
        else if (a == "--help" || a == "-h") {
            std::printf(
                "usage: mwsep bench -a astronomy_parameters.txt -s stars.txt [options]\n"
                "  --variants LIST           comma-separated variant names, or all (default)\n"
                "  --repeats N               timed repeats after one warm-up (default 5)\n"
                "  --threads-per-block N     (default 64)   --blocks-per-launch N (default 0: all)\n"
                "  --register-cap            the 48-register builds   --aos  array-of-structures stars\n"
                "  --work-unit NAME --experiment NAME --csv FILE   labels and output (rows appended)\n");
            return 0;
        } else throw std::invalid_argument("mwsep bench: unknown option '" + a + "'");
    }
    if (astronomy.empty() || stars_path.empty()) throw std::invalid_argument("mwsep bench: -a and -s are required");
    if (repeats < 1) throw std::invalid_argument("mwsep bench: --repeats must be at least 1");
    if (work_unit.empty()) work_unit = astronomy;
    const auto setup = geometry::make_setup(model::build_model(model::read_astronomy_parameters(astronomy)));
    const auto stars = model::read_stars(stars_path);

    // The CPU answer every timed run is checked against (fast integrator, all cores).
    const auto t0 = std::chrono::steady_clock::now();
    const auto cpu_integrals = cpu::integrate_fast(setup, 0);
    const auto cpu_like = cpu::likelihood_fast(setup, stars, cpu_integrals, 0);
    const double cpu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "mwsep bench: CPU check value %.17g (%.1f s)\n", cpu_like.likelihood, cpu_seconds);

    std::vector<const VariantInfo*> chosen;
    if (list == "all") {
        for (const auto& v : variants()) chosen.push_back(&v);
    } else {
        std::stringstream ss(list);
        std::string name;
        while (std::getline(ss, name, ',')) chosen.push_back(&find_variant(name));
    }
    double points = 0;
    for (const auto& a : setup.areas) points += static_cast<double>(a.cells()) * a.r.n_r * a.r.n_conv;

    std::ofstream csv;
    if (!csv_path.empty()) {
        const bool fresh = !std::ifstream(csv_path).good();
        csv.open(csv_path, std::ios::app);
        if (!csv) throw std::runtime_error("cannot write " + csv_path);
        if (fresh)
            csv << "experiment,variant,work_unit,repeat,threads_per_block,blocks_per_launch,register_cap,star_layout,"
                   "integral_ms,likelihood_ms,kernel_ms,total_ms,points_per_second,likelihood,rel_diff_cpu,valid\n";
    }
    std::printf("%-28s %10s %10s %10s %12s %10s\n", "variant", "median_ms", "min_ms", "max_ms", "points/s", "rel_diff");
    for (const VariantInfo* v : chosen) {
        evaluate(setup, stars, v->name, -1, launch, !aos);  // warm-up: module load, first-touch allocations
        std::vector<double> kernel_ms;
        double worst = 0;
        for (int rep = 0; rep < repeats; ++rep) {
            const auto w0 = std::chrono::steady_clock::now();
            const GpuResult g = evaluate(setup, stars, v->name, -1, launch, !aos);
            const double total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
            const double integral_ms = g.integral_seconds * 1e3, like_ms = g.likelihood_seconds * 1e3;
            const double diff = std::fabs(g.likelihood.likelihood - cpu_like.likelihood) / std::fabs(cpu_like.likelihood);
            // Full-size units: summation order alone moves the 11th digit (1e-10); single precision 1e-5.
            const bool valid = diff <= (v->double_precision ? 1e-10 : 1e-5);
            worst = std::max(worst, diff);
            kernel_ms.push_back(integral_ms + like_ms);
            if (csv.is_open()) {
                char row[768];
                std::snprintf(row, sizeof row, "%s,%s,%s,%d,%d,%d,%s,%s,%.4f,%.4f,%.4f,%.3f,%.6g,%.17g,%.3e,%s\n",
                              experiment.c_str(), v->name.c_str(), work_unit.c_str(), rep, launch.threads_per_block,
                              launch.blocks_per_launch, launch.register_cap ? "48" : "none", aos ? "aos" : "soa",
                              integral_ms, like_ms, integral_ms + like_ms, total_ms, points / (integral_ms / 1e3),
                              g.likelihood.likelihood, diff, valid ? "true" : "false");
                csv << row;
                csv.flush();
            }
        }
        std::sort(kernel_ms.begin(), kernel_ms.end());
        const double median = kernel_ms[kernel_ms.size() / 2];
        std::printf("%-28s %10.3f %10.3f %10.3f %12.4g %10.2e\n", v->name.c_str(), median, kernel_ms.front(),
                    kernel_ms.back(), points / (median / 1e3), worst);
    }
    return 0;
}

}  // namespace mwsep::cuda
