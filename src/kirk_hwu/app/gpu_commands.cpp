// kirk_hwu variants, bench and rates: the GPU side of the program.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "gpu_variants.hpp"
#include "harness/check.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/csv.hpp"
#include "harness/device_budget_cuda.hpp"
#include "harness/options.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "kirk_hwu/app/commands.hpp"
#include "kirk_hwu/reference.hpp"
#include "rates.hpp"

namespace kirk_hwu::app {

namespace {

/// The CSV columns of `kirk_hwu bench`, one row per timed sample (experiments/studies/kirk_hwu.py).
const std::vector<std::string> bench_columns = harness::with_timing_columns(
    {"experiment", "problem", "variant", "step", "precision", "size", "threads_per_block", "chunk", "sample", "kernel_ms", "pairs",
     "pairs_per_second", "valid", "max_abs_err", "max_rel_err", "rel_l2_err", "tolerance"});

/// The CSV columns of `kirk_hwu variants --csv`: each variant's kernel as the GPU runs it.
const std::vector<std::string> variant_columns = {"variant", "problem", "step", "tolerance", "registers",
                                                  "local_bytes", "threads_per_block", "occupancy_pct"};

/// The CSV columns of `kirk_hwu rates`.
const std::vector<std::string> rate_columns = harness::with_timing_columns(
    {"experiment", "operation", "sample", "operations", "ms", "ops_per_second", "sm_count"});

std::string pci_bus_id_of_current_device() { return harness::current_pci_bus_id(); }

namespace opt = harness::option;

/// The input of one problem at one size on the device, with its FP64 reference at the check points.
struct Prepared {
    std::unique_ptr<MriInput> mri;
    std::unique_ptr<CoulombInput> dcs;
    std::unique_ptr<gpu::MriDevice> mri_device;
    std::unique_ptr<gpu::CoulombDevice> dcs_device;
    std::vector<std::size_t> check_points;
    std::vector<double> reference;
    double pairs = 0;
};

Prepared prepare(gpu::Problem p, Size size, std::size_t check_count, int threads) {
    Prepared out;
    if (p == gpu::Problem::coulomb) {
        out.dcs = std::make_unique<CoulombInput>(make_coulomb_input(size));
        out.dcs_device = std::make_unique<gpu::CoulombDevice>(*out.dcs);
        out.check_points = spread_subset(out.dcs->points(), check_count);
        out.reference = coulomb_reference(*out.dcs, out.check_points, threads);
        out.pairs = static_cast<double>(out.dcs->points()) * out.dcs->atom_count();
    } else {
        const MriOutput which = p == gpu::Problem::mri_q ? MriOutput::q : MriOutput::fhd;
        out.mri = std::make_unique<MriInput>(make_mri_input(size));
        out.mri_device = std::make_unique<gpu::MriDevice>(*out.mri, which);
        out.check_points = spread_subset(out.mri->voxels(), check_count);
        out.reference = mri_reference(*out.mri, which, out.check_points, threads);
        out.pairs = static_cast<double>(out.mri->voxels()) * out.mri->samples();
    }
    return out;
}

void compute(const gpu::Variant& v, Prepared& p, const gpu::LaunchSettings& ls, cudaStream_t stream) {
    if (v.mri) v.mri(*p.mri_device, ls, stream);
    else v.coulomb(*p.dcs_device, ls, stream);
}

std::vector<double> result_at_check_points(const gpu::Variant& v, const Prepared& p) {
    if (v.mri) {
        // The subset the reference covers: the real parts, then the imaginary parts.
        return p.mri_device->download(p.check_points, v.fp64);
    }
    return p.dcs_device->download(p.check_points);
}

}  // namespace

int command_variants(const std::vector<std::string>& args) {
    harness::CommandHelp help;
    help.about = "Lists every GPU variant with its step, tolerance and what it changes and, on a machine with a GPU, "
                 "its kernel's registers, local memory and occupancy (n/a without one).";
    const harness::Options o(args,
                             {opt::csv("one row per variant (needs a GPU: the registers and occupancy)"),
                              opt::value("--experiment", "NAME",
                                         "the experiment's name (taken as every CSV command takes it; this CSV has no "
                                         "column for it)",
                                         "variants")},
                             "kirk_hwu variants", help);
    const bool gpu = harness::have_gpu();
    cudaDeviceProp prop{};
    if (gpu) {
        harness::check(cudaGetDeviceProperties(&prop, 0), "read the device's properties");
        std::printf("GPU: %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
    } else {
        std::printf("GPU: none (registers, local memory and occupancy need one: n/a below)\n");
    }
    if (o.has("--csv") && !gpu) throw o.error("--csv", "the registers and occupancy of the kernels need a GPU");
    std::unique_ptr<harness::CsvAppender> csv;
    if (o.has("--csv")) csv = std::make_unique<harness::CsvAppender>(o.text("--csv"), variant_columns);
    std::printf("%-34s %-8s %-6s %-9s %5s %6s %5s  %s\n", "variant", "problem", "step", "tolerance", "regs", "local",
                "occ%", "what it changes");
    for (const auto& v : gpu::variants().entries()) {
        cudaFuncAttributes a{};
        int blocks = 0;
        if (gpu) {
            harness::check(cudaFuncGetAttributes(&a, v.kernel), "read a kernel's attributes");
            // The occupancy at the variant's own block size, with the shared memory its policy asks for.
            harness::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.kernel, v.default_threads,
                                                                         v.dynamic_shared),
                           "compute a kernel's occupancy");
        }
        const double occupancy = gpu ? 100.0 * blocks * v.default_threads / prop.maxThreadsPerMultiProcessor : 0;
        // Without a GPU the counts are unknown, not zero.
        char regs[16] = "n/a", local[24] = "n/a", occ[16] = "n/a";
        if (gpu) {
            std::snprintf(regs, sizeof regs, "%d", a.numRegs);
            std::snprintf(local, sizeof local, "%zu", a.localSizeBytes);
            std::snprintf(occ, sizeof occ, "%.0f", occupancy);
        }
        std::printf("%-34s %-8s %-6s %-9.0e %5s %6s %5s  %s\n", v.name.c_str(), gpu::problem_name(v.problem).c_str(),
                    v.step.c_str(), v.tolerance, regs, local, occ, v.description.c_str());
        if (csv)
            csv->row({v.name, gpu::problem_name(v.problem), v.step, harness::csv_number(v.tolerance),
                      std::to_string(a.numRegs), std::to_string(a.localSizeBytes), std::to_string(v.default_threads),
                      harness::csv_number(occupancy)});
    }
    return 0;
}

int command_bench(const std::vector<std::string>& args) {
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 20;
    defaults.stop.time_limit_s = 2.0;
    harness::CommandHelp help;
    help.about = "Checks each named GPU variant against the FP64 reference at a spread subset of outputs, then times "
                 "it (CUDA events). Exit status 1 when a variant lies outside its tolerance.";
    const harness::Options o(
        args,
        harness::with_measure_options(
            {opt::required("--variants", "LIST", "comma-separated variants ('kirk_hwu variants' lists them)"),
             opt::value("--size", "tiny|small|medium|full", "the input", "full"),
             opt::value("--threads-per-block", "N", "threads per block", "0: each variant's own"),
             opt::value("--chunk", "N", "samples (atoms) per chunk, at most the variant's own", "0: each variant's own"),
             opt::value("--check-points", "N", "outputs compared with the FP64 reference", "2048"),
             opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "bench"),
             opt::csv("one row per sample")},
            defaults),
        "kirk_hwu bench", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (harness::print_criterion_if_asked(o, "kirk_hwu bench", measure, "one kernel run, CUDA events")) return 0;
    if (!o.has("--variants")) throw o.error("--variants", "name at least one variant ('kirk_hwu variants' lists them)");
    const auto chosen = o.choices("--variants", gpu::variants().name_list(), "");
    if (chosen.empty()) throw o.error("--variants", "name at least one variant ('kirk_hwu variants' lists them)");
    const Size size = parse_size(o.choice("--size", {"tiny", "small", "medium", "full"}, "full"));
    gpu::LaunchSettings ls;
    ls.threads_per_block = static_cast<int>(o.integer("--threads-per-block", 0, 0, 1024));
    ls.chunk = static_cast<int>(o.integer("--chunk", 0, 0, 1 << 20));
    const auto check_count = static_cast<std::size_t>(o.integer("--check-points", 2048, 1, 1 << 24));
    std::unique_ptr<harness::CsvAppender> csv;
    if (o.has("--csv")) csv = std::make_unique<harness::CsvAppender>(o.text("--csv"), bench_columns);
    const std::string experiment = o.text("--experiment", "bench");
    const int cpu_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

    {
        // Every chosen problem's device copy is kept until the end: all of them must fit, checked before any
        // input is made or reference computed.
        harness::DevicePlan plan("kirk_hwu bench at size " + size_name(size));
        std::set<gpu::Problem> problems;
        for (const auto& name : chosen) problems.insert(gpu::variants().find(name).problem);
        for (const gpu::Problem p : problems) {
            if (p == gpu::Problem::coulomb) {
                const CoulombShape c = coulomb_shape(size);
                const std::size_t points = static_cast<std::size_t>(c.gx) * c.gy * c.gz;
                plan.include(gpu::coulomb_device_plan(static_cast<std::size_t>(c.atoms), points, static_cast<std::size_t>(c.gz)));
            } else {
                const MriShape m = mri_shape(size);
                const std::size_t voxels = static_cast<std::size_t>(m.grid) * m.grid * m.grid;
                plan.include(gpu::mri_device_plan(voxels, static_cast<std::size_t>(m.samples),
                                                  p == gpu::Problem::mri_q ? MriOutput::q : MriOutput::fhd));
            }
        }
        harness::require_device_memory(plan, -1, "choose a smaller --size or fewer problems, or free the device");
    }
    harness::Stream stream;
    harness::ClockMonitor clocks(pci_bus_id_of_current_device());
    std::map<gpu::Problem, Prepared> prepared;
    int invalid = 0;
    for (const auto& name : chosen) {
        const gpu::Variant& v = gpu::variants().find(name);
        if (!prepared.count(v.problem)) prepared.emplace(v.problem, prepare(v.problem, size, check_count, cpu_threads));
        Prepared& p = prepared.at(v.problem);
        // One run to check against the reference (and to warm up), then the timed samples.
        compute(v, p, ls, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "run the variant once");
        const ErrorStats e = compare(p.reference, result_at_check_points(v, p));
        const bool valid = e.rel_l2 <= v.tolerance && e.max_rel <= v.tolerance;
        invalid += valid ? 0 : 1;
        const harness::Measurement m =
            harness::measure(stream.get(), measure, clocks, [&] { compute(v, p, ls, stream.get()); });
        const auto ms = m.ms();
        const double best = *std::min_element(ms.begin(), ms.end());
        std::printf("%-34s %s: %s, best %.3f ms (%.3g pairs/s, %zu samples, noise %.2f %%, %s), rel L2 err %.3g, max rel err %.3g (tolerance %.0e)\n",
                    v.name.c_str(), v.step.c_str(), valid ? "valid" : "INVALID", best, p.pairs / (best / 1e3), ms.size(),
                    m.noise_pct, m.cold ? "cold" : "warm", e.rel_l2, e.max_rel, v.tolerance);
        std::fflush(stdout);
        if (!csv) continue;
        const int threads = ls.threads_per_block > 0 ? ls.threads_per_block : v.default_threads;
        const int chunk = ls.chunk > 0 && v.default_chunk > 0 ? std::min(ls.chunk, v.default_chunk) : v.default_chunk;
        for (std::size_t s = 0; s < ms.size(); ++s)
            csv->row(harness::with_timing_values(
                {experiment, gpu::problem_name(v.problem), v.name, v.step, v.fp64 ? "f64" : "f32", size_name(size), std::to_string(threads),
                 std::to_string(chunk), std::to_string(s), harness::csv_number(ms[s]), harness::csv_number(p.pairs),
                 harness::csv_number(p.pairs / (ms[s] / 1e3)), valid ? "true" : "false", harness::csv_number(e.max_abs),
                 harness::csv_number(e.max_rel), harness::csv_number(e.rel_l2), harness::csv_number(v.tolerance)},
                m, s));
    }
    if (invalid) std::fprintf(stderr, "kirk_hwu bench: %d variant(s) outside their tolerance (rows marked valid=false)\n", invalid);
    return invalid ? 1 : 0;
}

int command_rates(const std::vector<std::string>& args) {
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 5;
    defaults.stop.max_samples = 5;
    defaults.stop.time_limit_s = 30;
    harness::CommandHelp help;
    help.about = "The FMA, sin+cos and rsqrt rate microbenchmark behind the throughput bounds: operations per second "
                 "of each, with the SM clock of every sample.";
    const harness::Options o(args,
                             harness::with_measure_options(
                                 {opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "rates"),
                                  opt::csv("one row per sample")},
                                 defaults),
                             "kirk_hwu rates", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(o, defaults);
    if (measure.cold) throw o.error("--cold", "does not apply: the rate kernels read no memory");
    if (harness::print_criterion_if_asked(o, "kirk_hwu rates", measure, "one rate kernel, CUDA events")) return 0;
    std::unique_ptr<harness::CsvAppender> csv;
    if (o.has("--csv")) csv = std::make_unique<harness::CsvAppender>(o.text("--csv"), rate_columns);
    int device = 0, sms = 0;
    harness::check(cudaGetDevice(&device), "read the current device");
    harness::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "read the SM count");
    harness::Stream stream;
    harness::ClockMonitor clocks(pci_bus_id_of_current_device());
    for (const auto& op : gpu::rate_operations()) {
        gpu::time_rate(op, stream.get());  // warm-up
        // time_rate times its own kernel with events; the engine keeps its operation count beside each time.
        std::vector<gpu::RateSample> taken;
        const harness::Measurement m = harness::measure_self_timed(stream.get(), measure, clocks, [&] {
            taken.push_back(gpu::time_rate(op, stream.get()));
            return taken.back().ms;
        });
        for (std::size_t s = 0; s < m.samples.size(); ++s) {
            const gpu::RateSample& r = taken.at(static_cast<std::size_t>(m.samples[s].attempt));
            const double rate = r.operations / (r.ms / 1e3);
            std::printf("%-12s sample %zu: %.4g ops/s (%.3f ms, SM clock %.0f MHz)\n", op.c_str(), s, rate, r.ms,
                        m.samples[s].clock.sm_clock_mhz);
            if (csv)
                csv->row(harness::with_timing_values(
                    {o.text("--experiment", "rates"), op, std::to_string(s), harness::csv_number(r.operations),
                     harness::csv_number(r.ms), harness::csv_number(rate), std::to_string(sms)},
                    m, s));
        }
    }
    return 0;
}

}  // namespace kirk_hwu::app
