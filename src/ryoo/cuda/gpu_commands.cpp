// The GPU commands: the kernels' resources, the timed and checked matrix products, the stream kernels and
// the single launches the profiler measures.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include "harness/check.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/csv.hpp"
#include "harness/device_budget_cuda.hpp"
#include "harness/device_memory.hpp"
#include "harness/options.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/host_memory.hpp"
#include "harness/output_paths.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/core/matrix.hpp"
#include "ryoo/core/product_check.hpp"
#include "ryoo/point_math.hpp"
#include "ryoo/variants.hpp"

namespace ryoo::app {
namespace {

using harness::check;

/// The GPU's name and SM count, for the first line of every command's output.
std::string describe_device() {
    int device = 0;
    check(cudaGetDevice(&device), "read the current device");
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, device), "query the device");
    return std::string(p.name) + " (" + std::to_string(p.multiProcessorCount) + " SMs)";
}

std::string pci_bus_id() { return harness::current_pci_bus_id(); }

namespace opt = harness::option;

/// The measurement every GPU timing of this program starts from: 5 to 50 samples, 0.5 %, 2 s.
harness::MeasureOptions measure_defaults() {
    harness::MeasureOptions d;
    d.stop.min_samples = 5;
    d.stop.max_samples = 50;
    d.stop.time_limit_s = 2.0;
    return d;
}

/// The measurement of a command, from its options and measure_defaults().
harness::MeasureOptions measure_options(const harness::Options& o) { return harness::parse_measure_options(o, measure_defaults()); }

/// The names --variants gives, each one of @p registry's; an OptionError (a usage error) names the first that
/// is not, with the valid ones.
template <class Registry>
std::vector<std::string> chosen_variants(const harness::Options& o, const Registry& registry) {
    const auto names = split_names(o.text("--variants", "all"), registry.name_list());
    for (const auto& name : names)
        if (!registry.contains(name))
            throw o.error("--variants", "unknown variant '" + name + "'; the valid names are: " + registry.names());
    return names;
}

/// The matrices of one size on the host, their double-precision reference, and device copies padded to
/// each multiple a variant asks for.
class GemmProblem {
public:
    GemmProblem(int n, std::uint64_t seed, long long sample)
        : a_(random_matrix(n, seed)), b_(random_matrix(n, seed + 1)), reference_(a_, b_, sample) {}

    int n() const { return a_.n; }
    const ProductReference& reference() const { return reference_; }

    /// Device operands padded to @p padded (uploaded once per padded size) and an output of that size.
    struct Buffers {
        const float* a;  ///< padded A
        const float* b;  ///< padded B
        float* c;        ///< padded C
    };
    Buffers buffers(int padded) {
        auto it = buffers_.find(padded);
        if (it == buffers_.end()) {
            memory_.emplace_back(std::make_unique<harness::DeviceMemory>());
            auto& m = *memory_.back();
            const Buffers b{m.upload(padded_copy(a_, padded), "upload A"), m.upload(padded_copy(b_, padded), "upload B"),
                            m.allocate<float>(static_cast<std::size_t>(padded) * padded, "allocate C")};
            it = buffers_.emplace(padded, b).first;
        }
        return it->second;
    }

private:
    Matrix a_, b_;
    ProductReference reference_;
    std::map<int, Buffers> buffers_;
    std::vector<std::unique_ptr<harness::DeviceMemory>> memory_;
};

/// One launch of @p v into a C filled with NaN, then the check of its product.
CheckResult run_and_check(const GemmVariant& v, const GemmLaunch& l, GemmProblem& p, cudaStream_t stream) {
    const int padded = round_up(p.n(), v.multiple);
    const auto buf = p.buffers(padded);
    const std::size_t bytes = sizeof(float) * padded * static_cast<std::size_t>(padded);
    check(cudaMemsetAsync(buf.c, 0xff, bytes, stream), "fill C with NaN");  // an element never written fails
    l.run(buf.a, buf.b, buf.c, padded, stream);
    check(cudaStreamSynchronize(stream), "run the checked launch");
    std::vector<float> c(static_cast<std::size_t>(padded) * padded);
    check(cudaMemcpy(c.data(), buf.c, bytes, cudaMemcpyDeviceToHost), "download C");
    return p.reference().check(c.data(), padded, single_unit_roundoff, v.input_roundoff);
}

}  // namespace

int command_variants(const Args& args) {
    const harness::Options o(
        args,
        {opt::flag("--names", "print the registered variant names only, '<kind> <name>' per line (no GPU needed)"),
         opt::flag("--apps", "list the applications' kernels instead, the application in the step column")},
        "ryoo variants",
        {{}, "One CSV row per GPU kernel of the matrix-multiplication ladder: registers, local memory (spills and "
             "stack), shared memory, the blocks and warps per SM the occupancy calculator allows, and the mangled "
             "symbol.",
         {}});
    if (o.has("--names")) {  // the registered names only: no device is touched
        for (const auto& name : gemm_variants().name_list()) std::printf("gemm %s\n", name.c_str());
        for (const auto& name : stream_variants().name_list()) std::printf("stream %s\n", name.c_str());
        print_application_names();
        return 0;
    }
    int device = 0;
    check(cudaGetDevice(&device), "read the current device");
    int max_warps = 0;
    check(cudaDeviceGetAttribute(&max_warps, cudaDevAttrMaxThreadsPerMultiProcessor, device), "query threads per SM");
    max_warps /= 32;
    std::fprintf(stderr, "GPU: %s\n", describe_device().c_str());
    std::puts("variant,step,threads_per_block,registers,local_bytes,static_smem_bytes,dynamic_smem_bytes,blocks_per_sm,"
              "warps_per_sm,theoretical_occupancy_pct,imposed_blocks_per_sm,symbol");
    if (o.has("--apps")) {
        print_application_kernels(max_warps);
        return 0;
    }
    for (const auto& v : gemm_variants().entries()) {
        const GemmLaunch l = v.prepare();
        if (!l.facts.function) continue;  // a library call: nothing to ask the runtime
        cudaFuncAttributes a{};
        check(cudaFuncGetAttributes(&a, l.facts.function), "read a kernel's attributes");
        int blocks = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, l.facts.function, l.facts.threads_per_block,
                                                            l.facts.dynamic_smem),
              "compute the occupancy");
        const int warps = blocks * ((l.facts.threads_per_block + 31) / 32);
        // The mangled name, by which the SASS listing and the profiler name the kernel.
        const char* symbol = nullptr;
        check(cudaFuncGetName(&symbol, l.facts.function), "read a kernel's name");
        std::printf("%s,%s,%d,%d,%zu,%zu,%zu,%d,%d,%.2f,%d,%s\n", v.name.c_str(), v.step.c_str(), l.facts.threads_per_block,
                    a.numRegs, a.localSizeBytes, a.sharedSizeBytes, l.facts.dynamic_smem, blocks, warps,
                    100.0 * warps / max_warps, l.facts.imposed_blocks_per_sm, symbol);
    }
    return 0;
}

int command_bench(const Args& args) {
    const harness::Options o(
        args,
        harness::with_measure_options(
            {opt::value("--variants", "all|NAME,...",
                        "the variants to check and time, comma-separated (`ryoo variants --names` lists them)", "all"),
             opt::value("--n", "N", "the matrices' order, 16 to 16384", "4096"),
             opt::value("--sample", "N", "elements of C checked when the product is too large to check whole, 4 to n^2",
                        "65536"),
             opt::value("--seed", "N", "the seed of the random matrices", "1"),
             opt::value("--experiment", "NAME", "the rows' experiment column", "bench"), opt::csv("one row per sample")},
            measure_defaults()),
        "ryoo bench",
        {{}, "Checks each variant's product against a double-precision CPU product (every element, or a sample for "
             "large n) with the error bound gamma_n |A||B|, then times single launches with CUDA events under the "
             "measurement options.",
         {}});
    const auto measure = measure_options(o);
    if (harness::print_criterion_if_asked(o, "ryoo bench", measure, "one product launch, CUDA events")) return 0;
    const auto names = chosen_variants(o, gemm_variants());  // an unknown name fails before any work
    const int n = static_cast<int>(o.integer("--n", 4096, 16, 16384));
    // Before the CPU reference (seconds at n = 16384): the sample within the product, the output, the device.
    const long long sample = o.integer("--sample", 65536, 4, static_cast<long long>(n) * n);
    if (o.has("--csv")) harness::check_outputs("ryoo bench", {}, {{"--csv", o.text("--csv")}});
    (void)describe_device();
    {
        // The device copies of every padded size the variants ask for are kept to the end: all must fit,
        // checked before the CPU reference.
        harness::DevicePlan plan("ryoo bench at n = " + std::to_string(n));
        std::set<int> padded;
        for (const auto& name : names) padded.insert(round_up(n, gemm_variants().find(name).multiple));
        for (const int p : padded)
            plan.add<float>("A, B and C padded to " + std::to_string(p), static_cast<std::size_t>(p) * p, 3);
        harness::require_device_memory(plan, -1, "give a smaller --n, or free the device (other processes on it)");
    }
    GemmProblem problem(n, static_cast<std::uint64_t>(o.integer("--seed", 1, 0)), sample);
    std::optional<harness::CsvAppender> csv;
    if (o.has("--csv"))
        csv.emplace(o.require("--csv"),
                    harness::with_timing_columns({"experiment", "variant", "step", "n", "padded_n", "repeat", "kernel_ms",
                                                  "gflops", "valid", "max_error_ratio", "checked_elements"}));
    std::printf("GPU: %s\n", describe_device().c_str());
    harness::Stream stream;
    harness::ClockMonitor monitor(pci_bus_id());
    const double flops = 2.0 * n * n * static_cast<double>(n);
    int failures = 0;
    for (const auto& name : names) {
        const GemmVariant& v = gemm_variants().find(name);
        const GemmLaunch l = v.prepare();
        const CheckResult r = run_and_check(v, l, problem, stream.get());
        if (!r.pass()) ++failures;
        const int padded = round_up(n, v.multiple);
        const auto buf = problem.buffers(padded);
        const harness::Measurement t =
            harness::measure(stream.get(), measure, monitor, [&] { l.run(buf.a, buf.b, buf.c, padded, stream.get()); });
        const double median = t.summary().median;
        std::printf("%-36s %-7s n=%d: %9.3f ms  %9.1f GFLOP/s  %s  [%s]\n", v.name.c_str(), v.step.c_str(), n, median,
                    flops / median / 1e6, r.pass() ? "ok" : "WRONG", r.describe().c_str());
        std::fflush(stdout);
        if (csv)
            for (std::size_t i = 0; i < t.samples.size(); ++i) {
                const double ms = t.samples[i].ms;
                csv->row(harness::with_timing_values(
                    {o.text("--experiment", "bench"), v.name, v.step, std::to_string(n), std::to_string(padded),
                     std::to_string(i), harness::csv_number(ms), harness::csv_number(flops / ms / 1e6),
                     r.pass() ? "true" : "false", harness::csv_number(r.worst_ratio), std::to_string(r.checked)},
                    t, i));
            }
    }
    if (failures) std::fprintf(stderr, "ryoo bench: %d variant(s) failed their check\n", failures);
    return failures ? 1 : 0;
}

int command_stream(const Args& args) {
    const harness::Options o(
        args,
        harness::with_measure_options(
            {opt::value("--variants", "all|NAME,...",
                        "the kernels to check and time, comma-separated (`ryoo variants --names` lists them)", "all"),
             opt::value("--count", "N", "float elements per array, a multiple of 4 from 1024 to 2^32", "268435456"),
             opt::value("--experiment", "NAME", "the rows' experiment column", "stream"), opt::csv("one row per sample")},
            measure_defaults()),
        "ryoo stream",
        {{}, "SAXPY (y <- alpha x + y) and copies over float arrays: each result is compared exactly with the CPU's "
             "(the same single rounding, fmaf), then single launches are timed with CUDA events under the "
             "measurement options.",
         {}});
    const auto measure = measure_options(o);
    if (harness::print_criterion_if_asked(o, "ryoo stream", measure, "one stream kernel launch, CUDA events")) return 0;
    const auto names = chosen_variants(o, stream_variants());
    const long long count = o.integer("--count", 1LL << 28, 1024, 1LL << 32);
    if (count % 4) throw o.error("--count", "must be a multiple of 4");
    // Before the host arrays (x, y and the expected y: 12 bytes per element): the output, the device, the memory.
    if (o.has("--csv")) harness::check_outputs("ryoo stream", {}, {{"--csv", o.text("--csv")}});
    (void)describe_device();
    harness::check_host_bytes(o, "--count", 16.0 * static_cast<double>(count), "x, y, the expected and the downloaded y");
    {
        harness::DevicePlan plan("ryoo stream of " + std::to_string(count) + " elements");
        plan.add<float>("x and y", static_cast<std::size_t>(count), 2);
        harness::require_device_memory(plan, -1, "give a smaller --count, or free the device (other processes on it)");
    }
    const float alpha = 1.5f;
    const std::vector<float> x = random_vector(static_cast<std::size_t>(count), 11);
    const std::vector<float> y = random_vector(static_cast<std::size_t>(count), 12);
    std::vector<float> expected(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) expected[i] = saxpy_element(alpha, x[i], y[i]);
    harness::DeviceMemory memory;
    const float* dx = memory.upload(x, "upload x");
    float* dy = memory.allocate<float>(y.size(), "allocate y");
    std::optional<harness::CsvAppender> csv;
    if (o.has("--csv"))
        csv.emplace(o.require("--csv"),
                    harness::with_timing_columns(
                        {"experiment", "variant", "count", "bytes", "repeat", "kernel_ms", "gb_per_s", "valid"}));
    std::printf("GPU: %s\n", describe_device().c_str());
    harness::Stream stream;
    harness::ClockMonitor monitor(pci_bus_id());
    int failures = 0;
    std::vector<float> got(y.size());
    for (const auto& name : names) {
        const StreamVariant& v = stream_variants().find(name);
        const auto n = static_cast<std::size_t>(count);
        check(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice), "upload y");
        v.run(alpha, dx, dy, n, stream.get());
        check(cudaStreamSynchronize(stream.get()), "run the checked launch");
        check(cudaMemcpy(got.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost), "download y");
        const std::vector<float>& want = v.is_saxpy ? expected : x;
        const bool valid = std::memcmp(got.data(), want.data(), n * sizeof(float)) == 0;
        if (!valid) ++failures;
        // SAXPY rewrites y in place on every timed launch; its traffic does not depend on the values.
        const harness::Measurement t =
            harness::measure(stream.get(), measure, monitor, [&] { v.run(alpha, dx, dy, n, stream.get()); });
        const double bytes = static_cast<double>(v.bytes_per_element) * static_cast<double>(n);
        const double median = t.summary().median;
        std::printf("%-14s %lld elements: %8.3f ms  %8.1f GB/s  %s\n", v.name.c_str(), count, median, bytes / median / 1e6,
                    valid ? "exact" : "WRONG");
        std::fflush(stdout);
        if (csv)
            for (std::size_t i = 0; i < t.samples.size(); ++i) {
                const double ms = t.samples[i].ms;
                csv->row(harness::with_timing_values(
                    {o.text("--experiment", "stream"), v.name, std::to_string(count), harness::csv_number(bytes),
                     std::to_string(i), harness::csv_number(ms), harness::csv_number(bytes / ms / 1e6),
                     valid ? "true" : "false"},
                    t, i));
            }
    }
    if (failures) std::fprintf(stderr, "ryoo stream: %d variant(s) gave a wrong result\n", failures);
    return failures ? 1 : 0;
}

int command_profile(const Args& args) {
    const harness::Options o(
        args,
        {opt::value("--variants", "all|NAME,...",
                    "the variants to launch, in this order (`ryoo variants --names` lists them)", "all"),
         opt::value("--n", "N", "the matrices' order, 16 to 16384", "4096")},
        "ryoo profile",
        {{}, "Exactly one launch of each named variant, in the order given (the profiler's launch ids follow it), "
             "with no warm-up and no check (for Nsight Compute); the order is printed as 'launch <i>: <variant>'.",
         {}});
    const auto names = chosen_variants(o, gemm_variants());
    const int n = static_cast<int>(o.integer("--n", 4096, 16, 16384));
    {
        // One variant's copies at a time, freed before the next: the largest padded size must fit.
        harness::DevicePlan plan("ryoo profile at n = " + std::to_string(n));
        for (const auto& name : names) {
            const int p = round_up(n, gemm_variants().find(name).multiple);
            plan.then(name).add<float>("A, B and C padded to " + std::to_string(p), static_cast<std::size_t>(p) * p, 3);
        }
        harness::require_device_memory(plan, -1, "give a smaller --n, or free the device (other processes on it)");
    }
    const Matrix a = random_matrix(n, 1), b = random_matrix(n, 2);
    harness::Stream stream;
    int launch = 0;
    for (const auto& name : names) {
        const GemmVariant& v = gemm_variants().find(name);
        const GemmLaunch l = v.prepare();
        const int padded = round_up(n, v.multiple);
        harness::DeviceMemory m;
        const float* da = m.upload(padded_copy(a, padded), "upload A");
        const float* db = m.upload(padded_copy(b, padded), "upload B");
        float* dc = m.allocate<float>(static_cast<std::size_t>(padded) * padded, "allocate C");
        l.run(da, db, dc, padded, stream.get());
        check(cudaStreamSynchronize(stream.get()), "run the profiled launch");
        std::printf("launch %d: %s\n", launch++, v.name.c_str());
    }
    return 0;
}

}  // namespace ryoo::app
