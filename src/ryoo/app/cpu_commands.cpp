// The commands that need no GPU: the build's facts and the CPU BLAS timing; and, in a build without CUDA,
// the GPU commands' refusal.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "harness/csv.hpp"
#include "harness/json.hpp"
#include "harness/options.hpp"
#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/output_paths.hpp"
#include "harness/progress.hpp"
#include "harness/subcommands.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/core/matrix.hpp"
#include "ryoo/core/product_check.hpp"
#include "ryoo/cpu/cpu_blas.hpp"

namespace ryoo::app {

std::vector<std::string> split_names(const std::string& text, const std::vector<std::string>& all,
                                     const std::string& option) {
    if (text == "all") return all;
    const std::string expected = ": expected items separated by single commas";
    if (text.empty()) throw harness::OptionError(option + ": no items given" + expected);
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        if (comma == start)
            throw harness::OptionError(option + ": an empty item in '" + text + "'" + expected);
        out.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

namespace {

/// The most threads the linked OpenBLAS runs (its MAX_THREADS, from its configuration string), or 0 when
/// the library does not say.
int blas_thread_limit() {
    const std::string config = cpu_blas_description();
    const std::size_t at = config.find("MAX_THREADS=");
    if (at == std::string::npos) return 0;
    return std::atoi(config.c_str() + at + 12);
}

/// Above this many floating-point operations (products and warm-ups of every thread count) bench-cpu is
/// refused unless --force: 1e15 is hours on a many-core CPU.
constexpr double max_bench_cpu_flops = 1e15;

}  // namespace

/// A rough single-thread SGEMM rate [FLOP/s] for the estimate before the work: OpenBLAS's SSE3 kernels on one
/// core of a 2-core development machine (its AVX-512 kernels do several times more; the progress corrects it).
constexpr double rough_flops_per_core = 1e10;

/// The cores @p threads threads of one product use for the estimate: more threads than cores gain nothing
/// (they take turns, and a product waits for its slowest thread).
int estimate_cores(int threads, int cores) { return threads <= cores ? threads : 1; }

int command_info(const Args& args) {
    harness::CommandHelp help;
    help.about = "Prints the build's facts as one JSON object: whether it has CUDA, whether it has a CPU BLAS and "
                 "which one.";
    const harness::Options o(args, {}, "ryoo info", help);
    harness::JsonObject j(std::cout);
#if defined(RYOO_WITH_CUDA)
    j.boolean("cuda", true);
#else
    j.boolean("cuda", false);
#endif
    j.boolean("cpu_blas", cpu_blas_available()).string("cpu_blas_library", cpu_blas_description());
    j.close();
    std::cout << '\n';
    return 0;
}

int command_bench_cpu(const Args& args) {
    namespace opt = harness::option;
    // A product of the default size takes seconds: three samples unless more are asked for.
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 3;
    defaults.stop.time_limit_s = 3600;
    std::vector<harness::OptionSpec> specs = {
        opt::value("--n", "N", "the matrices' order, 16 to 16384", "4096"),
        opt::value("--threads", "LIST", "comma-separated thread counts, each timed in turn (at most the library's "
                                        "MAX_THREADS)", "1"),
        opt::value("--seed", "N", "the random matrices' seed", "1"),
        opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "bench_cpu"),
        opt::csv("one row per sample"),
        opt::flag("--force", "run work above 1e15 floating-point operations")};
    for (auto& s : harness::host_measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about = "Times cblas_sgemm of two random n x n matrices on each thread count (after one product that is "
                 "checked against a double-precision product: a sample of 65536 elements for large n). It prints its "
                 "estimate first and its progress while it runs; exit status 1 when a product was wrong.";
    const harness::Options o(args, specs, "ryoo bench-cpu", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "ryoo bench-cpu", measure, "one cblas_sgemm product, host steady clock"))
        return 0;
    // A user's --time-limit bounds the whole command, counted from here.
    harness::Deadline deadline = o.has("--time-limit") ? harness::Deadline(measure.stop.time_limit_s) : harness::Deadline();
    const int n = static_cast<int>(o.integer("--n", 4096, 16, 16384));
    const auto seed = static_cast<std::uint64_t>(o.integer("--seed", 1, 0));
    std::vector<int> threads;
    for (const auto& t : split_names(o.text("--threads", "1"), {}, "ryoo bench-cpu: --threads")) {
        const harness::Options one({"--threads", t}, {{"--threads"}}, "ryoo bench-cpu");
        threads.push_back(static_cast<int>(one.integer("--threads", 1, 1, 4096)));
        // A count the library does not run would be recorded as if it had (OpenBLAS caps its pool silently).
        const int limit = blas_thread_limit();
        if (limit > 0 && threads.back() > limit)
            throw o.error("--threads", t + " is above the " + std::to_string(limit) + " threads the linked OpenBLAS runs at "
                                       "most (its MAX_THREADS): expected 1 to " + std::to_string(limit));
    }
    // Every output path before any work: the matrices of n = 16384 take seconds to build.
    if (o.has("--csv")) harness::check_outputs("ryoo bench-cpu", {}, {{"--csv", o.text("--csv")}});
    if (!cpu_blas_available()) throw std::runtime_error("this build has no CPU BLAS: " + cpu_blas_description());
    const double flops = 2.0 * n * n * static_cast<double>(n);
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Products per thread count: the checked one (also the warm-up), then the samples.
    const int products = measure.stop.min_samples + 1;
    {
        double seconds = 0;
        int oversubscribed = 0;
        for (int t : threads) {
            seconds += products * flops / (rough_flops_per_core * estimate_cores(t, cores));
            oversubscribed = std::max(oversubscribed, t > cores ? t : 0);
        }
        const double work = flops * products * static_cast<double>(threads.size());
        std::fprintf(stderr,
                     "ryoo bench-cpu: about %.3g floating-point operations (%zu thread count(s) x %d products or more of n = "
                     "%d): about %s at a rough %.0e FLOP/s per core%s%s\n",
                     work, threads.size(), products, n, harness::duration_text(seconds).c_str(), rough_flops_per_core,
                     oversubscribed ? (", " + std::to_string(oversubscribed) + " threads sharing " + std::to_string(cores) +
                                       " cores (each product waits for the slowest thread: expect longer)").c_str()
                                    : "",
                     deadline.set() && seconds > deadline.limit_s() ? "; --time-limit stops it before" : "");
        if (work > max_bench_cpu_flops && !o.has("--force"))
            throw o.error("--n", "with --min-samples and --threads asks for about " + harness::short_number(work) +
                                     " operations, above the limit of 1e15: lower them, or give --force");
    }
    std::optional<harness::CsvAppender> csv;
    if (o.has("--csv"))
        csv.emplace(o.require("--csv"),
                    harness::with_host_timing_columns({"experiment", "library", "threads", "n", "repeat", "seconds", "gflops",
                                                       "valid", "max_error_ratio", "checked_elements"}));
    const Matrix a = random_matrix(n, seed), b = random_matrix(n, seed + 1);
    const ProductReference reference(a, b);
    std::vector<float> c(static_cast<std::size_t>(n) * n);
    // The progress of the whole command, in one-core product times: a product on t threads counts
    // 1 / estimate_cores(t, cores).
    double planned = 0, done = 0;
    for (int t : threads) planned += static_cast<double>(products) / estimate_cores(t, cores);
    harness::ProgressBar progress("ryoo bench-cpu", true);
    const auto advance = [&](int t) {
        done += 1.0 / estimate_cores(t, cores);
        progress.update(static_cast<std::size_t>(1000 * done), static_cast<std::size_t>(1000 * std::max(planned, done)));
    };
    std::string finished;
    bool all_valid = true;
    for (int t : threads) {
        deadline.check();
        cpu_sgemm(a.data.data(), b.data.data(), c.data(), n, t);  // warm-up (thread start, page faults), checked
        advance(t);
        const CheckResult r = reference.check(c.data(), n);
        all_valid = all_valid && r.pass();
        std::printf("cpu blas, %d thread(s), n = %d: %s\n", t, n, r.describe().c_str());
        const harness::Measurement m = harness::measure_host(measure, [&] {
            cpu_sgemm(a.data.data(), b.data.data(), c.data(), n, t);
            advance(t);
        }, deadline);
        for (std::size_t rep = 0; rep < m.samples.size(); ++rep) {
            const double s = m.samples[rep].ms / 1e3;
            std::printf("  sample %zu: %.4f s, %.1f GFLOP/s\n", rep, s, flops / s / 1e9);
            if (csv)
                csv->row(harness::with_host_timing_values(
                    {o.text("--experiment", "bench_cpu"), cpu_blas_description(), std::to_string(t), std::to_string(n),
                     std::to_string(rep), harness::csv_number(s), harness::csv_number(flops / s / 1e9),
                     r.pass() ? "true" : "false", harness::csv_number(r.worst_ratio), std::to_string(r.checked)},
                    m, rep));
        }
        std::fflush(stdout);
        finished += (finished.empty() ? "" : ", ") + std::to_string(t) + " thread(s)";
        deadline.note(finished + (csv ? " (their rows are in the CSV)" : ""));
    }
    return all_valid ? 0 : 1;
}

#if !defined(RYOO_WITH_CUDA)
// The GPU commands of a build without CUDA: main() lists them as unavailable and never calls these.
int command_variants(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_bench(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_stream(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_profile(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_elimination(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_tpacf(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_rc5(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_pns(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_h264(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_rpes(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_fdtd(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_lbm(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_fem(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_matmul_app(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_mri_q(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_mri_fhd(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_cp(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
int command_profile_apps(const Args&) { throw std::runtime_error(harness::needs_cuda_build); }
#endif

}  // namespace ryoo::app
