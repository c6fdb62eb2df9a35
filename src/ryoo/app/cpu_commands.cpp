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

#include "harness/csv.hpp"
#include "harness/json.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
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

int command_info(const Args& args) {
    const harness::Options o(args, {}, "ryoo info");
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
    const harness::Options o(args,
                             {{"--help", harness::OptionKind::flag}, {"--n"}, {"--threads"}, {"--repeats"}, {"--csv"},
                              {"--experiment"}, {"--seed"}, {"--force", harness::OptionKind::flag}},
                             "ryoo bench-cpu");
    if (o.has("--help")) {
        std::puts("ryoo bench-cpu [--n 4096] [--threads 1,16] [--repeats 3] [--seed 1] [--experiment NAME] [--csv FILE] [--force]\n"
                  "  times cblas_sgemm of two random n x n matrices on each thread count and checks the product\n"
                  "  against a double-precision product (a sample of 65536 elements for large n); thread counts\n"
                  "  above the library's MAX_THREADS are refused; --force runs work above 1e15 operations");
        return 0;
    }
    if (!cpu_blas_available()) {
        std::fprintf(stderr, "ryoo bench-cpu: %s\n", cpu_blas_description().c_str());
        return 3;
    }
    const int n = static_cast<int>(o.integer("--n", 4096, 16, 16384));
    const int repeats = static_cast<int>(o.integer("--repeats", 3, 1, 100));
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
    {
        const double flops = 2.0 * n * n * static_cast<double>(n) * (repeats + 1) * static_cast<double>(threads.size());
        std::fprintf(stderr, "ryoo bench-cpu: about %.3g floating-point operations (%zu thread count(s) x %d products of n = %d)\n",
                     flops, threads.size(), repeats + 1, n);
        if (flops > max_bench_cpu_flops && !o.has("--force"))
            throw o.error("--n", "with --repeats and --threads asks for about " + harness::short_number(flops) +
                                     " operations, above the limit of 1e15: lower them, or give --force");
    }
    std::optional<harness::CsvAppender> csv;
    if (o.has("--csv"))
        csv.emplace(o.require("--csv"), std::vector<std::string>{"experiment", "library", "threads", "n", "repeat", "seconds", "gflops", "valid",
                              "max_error_ratio", "checked_elements"});
    const Matrix a = random_matrix(n, seed), b = random_matrix(n, seed + 1);
    const ProductReference reference(a, b);
    std::vector<float> c(static_cast<std::size_t>(n) * n);
    const double flops = 2.0 * n * n * static_cast<double>(n);
    bool all_valid = true;
    for (int t : threads) {
        cpu_sgemm(a.data.data(), b.data.data(), c.data(), n, t);  // warm-up: thread start, page faults
        const CheckResult r = reference.check(c.data(), n);
        all_valid = all_valid && r.pass();
        std::printf("cpu blas, %d thread(s), n = %d: %s\n", t, n, r.describe().c_str());
        for (int rep = 0; rep < repeats; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            cpu_sgemm(a.data.data(), b.data.data(), c.data(), n, t);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("  repeat %d: %.4f s, %.1f GFLOP/s\n", rep, s, flops / s / 1e9);
            if (csv)
                csv->row({o.text("--experiment", "bench_cpu"), cpu_blas_description(), std::to_string(t), std::to_string(n),
                     std::to_string(rep), harness::csv_number(s), harness::csv_number(flops / s / 1e9),
                     r.pass() ? "true" : "false", harness::csv_number(r.worst_ratio), std::to_string(r.checked)});
        }
    }
    return all_valid ? 0 : 1;
}

#if !defined(RYOO_WITH_CUDA)
namespace {
int no_cuda(const char* command) {
    std::fprintf(stderr, "ryoo %s: this build has no CUDA (no nvcc was found when it was configured)\n", command);
    return 2;
}
}  // namespace
int command_variants(const Args&) { return no_cuda("variants"); }
int command_bench(const Args&) { return no_cuda("bench"); }
int command_stream(const Args&) { return no_cuda("stream"); }
int command_profile(const Args&) { return no_cuda("profile"); }
int command_elimination(const Args&) { return no_cuda("elimination"); }
int command_tpacf(const Args&) { return no_cuda("tpacf"); }
int command_rc5(const Args&) { return no_cuda("rc5"); }
int command_pns(const Args&) { return no_cuda("pns"); }
int command_h264(const Args&) { return no_cuda("h264"); }
int command_rpes(const Args&) { return no_cuda("rpes"); }
int command_fdtd(const Args&) { return no_cuda("fdtd"); }
int command_lbm(const Args&) { return no_cuda("lbm"); }
int command_fem(const Args&) { return no_cuda("fem"); }
int command_matmul_app(const Args&) { return no_cuda("matmul-app"); }
int command_mri_q(const Args&) { return no_cuda("mri-q"); }
int command_mri_fhd(const Args&) { return no_cuda("mri-fhd"); }
int command_cp(const Args&) { return no_cuda("cp"); }
int command_profile_apps(const Args&) { return no_cuda("profile-apps"); }
#endif

}  // namespace ryoo::app
