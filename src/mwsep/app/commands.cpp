#include "mwsep/app/commands.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <ctime>
#include <memory>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "mwsep/app/evaluate.hpp"
#include "mwsep/app/input_options.hpp"
#include "harness/options.hpp"
#include "harness/excerpt.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "harness/json.hpp"
#include "harness/progress.hpp"
#include "harness/atomic_file.hpp"
#include "harness/host_memory.hpp"
#include "harness/output_paths.hpp"
#include "mwsep/resume/checkpoint.hpp"
#include "harness/csv.hpp"
#include "harness/measure_options.hpp"
#include "harness/registry.hpp"
#include "harness/statistics.hpp"
#include "harness/subcommands.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/input_error.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"
#include "mwsep/math/constants.hpp"

#if defined(MWSEP_WITH_CUDA)
#include "harness/registry.hpp"
#include "mwsep/cuda/commands.hpp"
#include "mwsep/cuda/devices.hpp"
#endif

namespace mwsep::app {
namespace {

/// The input files a command read from its options (-a, -s where given, --search-parameters), for
/// harness::check_outputs: no output may name one of them.
std::vector<harness::NamedPath> input_paths(const RunOptions& o) {
    std::vector<harness::NamedPath> inputs{{"-a", o.astronomy_path}};
    if (!o.stars_path.empty()) inputs.push_back({"-s", o.stars_path});
    if (o.search_path) inputs.push_back({"--search-parameters", *o.search_path});
    return inputs;
}

using harness::OptionKind;
using harness::Options;
using harness::OptionSpec;
namespace opt = harness::option;

/// One size of --envelope: decimal digits only, 1 to @p max (no sign, no overflow, no trailing text).
bool envelope_size(std::string_view text, int max, int& out) {
    if (text.empty() || text.size() > 9) return false;
    for (const char ch : text)
        if (ch < '0' || ch > '9') return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size() && out >= 1 && out <= max;
}

/// --envelope MUxNUxR, strictly: three sizes separated by 'x', each within generate's limits.
void parse_envelope(const Options& opt, generate::Options& g) {
    const std::string text = opt.text("--envelope");
    const auto fail = [&] {
        return opt.error("--envelope", "must look like 160x16x70 (sizes 1 to " + std::to_string(generate::max_envelope_size) +
                                           ", at most " + std::to_string(generate::max_envelope_cells) +
                                           " cells in all), found " + harness::quoted(text));
    };
    const auto x1 = text.find('x');
    const auto x2 = x1 == std::string::npos ? x1 : text.find('x', x1 + 1);
    if (x2 == std::string::npos) throw fail();
    const std::string_view v(text);
    int a = 0, b = 0, c = 0;
    if (!envelope_size(v.substr(0, x1), generate::max_envelope_size, a) ||
        !envelope_size(v.substr(x1 + 1, x2 - x1 - 1), generate::max_envelope_size, b) ||
        !envelope_size(v.substr(x2 + 1), generate::max_envelope_size, c))
        throw fail();
    if (static_cast<long long>(a) * b * c > generate::max_envelope_cells) throw fail();
    g.envelope_mu = a, g.envelope_nu = b, g.envelope_r = c;
}

std::string r_binning_name(model::RBinning b) { return b == model::RBinning::kpc ? "kpc" : "magnitude"; }

std::size_t quadrature_points(const geometry::IntegrationSetup& s) {
    std::size_t n = 0;
    for (const auto& a : s.areas) n += a.cells() * a.r.n_r * a.r.n_conv;
    return n;
}

}  // namespace

int command_run(const Args& args, const RunHooks& hooks) {
    std::vector<OptionSpec> specs = input_options(
        true,
        {opt::value("--backend", "cpu|cuda", "where to compute", "cpu"),
         opt::value("--cpu", "reference|fast|extended|compressed",
                    "the CPU integrator: reference (serial, the original order), fast (threaded), extended (every "
                    "point and sum in long double: an accuracy reference, several times slower than fast) or "
                    "compressed (a different algorithm: Gauss rules of the line of sight with an error controller)",
                    "fast"),
         opt::value("--tolerance", "T", "the compressed integrator's relative tolerance per cell", "1e-14"),
         opt::value("--threads", "N", "threads of the fast, extended and compressed CPU integrators", "all cores"),
         opt::value("--variant", "NAME", "the CUDA kernel variant ('mwsep variants' lists them)", "shared-fast-unrolled-f64"),
         opt::value("--device", "N",
                    "the CUDA device (the modern variants split the work over every device with double precision "
                    "unless one is named)",
                    "the fastest one with double precision"),
         opt::flag("--json", "print the result as one JSON object on standard output instead of text"),
         opt::value("--checkpoint", "FILE",
                    "save the integral's progress in FILE (every --checkpoint-interval seconds and on SIGINT or "
                    "SIGTERM) and resume from it when the same command runs again; the result is bit-identical to "
                    "an uninterrupted run (CPU integrators reference and fast; on the GPU the modern variants)",
                    "none"),
         opt::value("--checkpoint-interval", "S", "seconds between checkpoints", "60")});
    if (hooks.resolve)
        specs.push_back(opt::value("--result", "FILE", "also write the --json object to FILE (a BOINC output file)", "none"));
    harness::CommandHelp help;
    help.about = "Evaluates the likelihood of a work unit and a star catalogue on the CPU or a GPU: the background "
                 "and stream integrals, the diagnostic likelihoods, the likelihood and the time.";
    if (hooks.resolve)
        help.notes = "BOINC application: every file name is resolved by the BOINC runtime (standalone: as given).";
    const Options opt(args, specs, "mwsep run", help);
    RunOptions o = input_run_options(opt, true);
    // A host runtime's logical file names become the files to open before anything checks or reads them.
    const auto physical = [&](const std::string& name) { return hooks.resolve ? hooks.resolve(name) : name; };
    o.astronomy_path = physical(o.astronomy_path);
    o.stars_path = physical(o.stars_path);
    if (o.search_path) o.search_path = physical(*o.search_path);
    o.checkpoint_due = hooks.checkpoint_due;
    o.checkpoint_saved = hooks.checkpoint_saved;
    o.backend = opt.choice("--backend", {"cpu", "cuda"}, "cpu");
    o.cpu_integrator = opt.choice("--cpu", {"reference", "fast", "extended", "compressed"}, "fast");
    if (opt.has("--tolerance")) {
        if (o.backend != "cpu" || o.cpu_integrator != "compressed")
            throw opt.error("--tolerance", "applies to --cpu compressed only");
        o.compressed_tolerance = opt.real("--tolerance", 1e-14);
        if (!(o.compressed_tolerance > 0 && o.compressed_tolerance <= 1e-3))
            throw opt.error("--tolerance", "must lie in (0, 1e-3], found '" + opt.text("--tolerance") + "'");
    }
    o.threads = static_cast<int>(opt.integer("--threads", 0, 0, INT_MAX));
    o.variant = opt.text("--variant", o.variant);
    o.device = static_cast<int>(opt.integer("--device", -1, -1, INT_MAX));
    // Options of one backend given to the other would be ignored without a word.
    if (o.backend == "cpu")
        for (const char* gpu_only : {"--variant", "--device"})
            if (opt.has(gpu_only)) throw opt.error(gpu_only, "applies to --backend cuda only");
    if (o.backend == "cuda")
        for (const char* cpu_only : {"--cpu", "--threads"})
            if (opt.has(cpu_only)) throw opt.error(cpu_only, "applies to --backend cpu only");
    if (opt.has("--checkpoint-interval") && !opt.has("--checkpoint"))
        throw opt.error("--checkpoint-interval", "needs --checkpoint FILE");
    if (opt.has("--checkpoint")) {
        o.checkpoint_path = physical(opt.text("--checkpoint"));
        o.checkpoint_interval = opt.real("--checkpoint-interval", 60.0);
        if (!(o.checkpoint_interval >= 0) || o.checkpoint_interval > 1e7)
            throw opt.error("--checkpoint-interval", "must be a number of seconds between 0 and 1e7");
        if (o.backend == "cuda" && o.variant.rfind("modern-", 0) != 0)
            throw opt.error("--checkpoint", "on the GPU needs a modern variant (--variant modern-f64 or modern-f32)");
        if (o.backend == "cpu" && (o.cpu_integrator == "extended" || o.cpu_integrator == "compressed"))
            throw opt.error("--checkpoint", "the " + o.cpu_integrator + " CPU integrator takes no checkpoint (use --cpu "
                                            "reference or fast)");
    }
    std::optional<std::string> result_path;
    if (opt.has("--result")) result_path = physical(opt.text("--result"));
    {
        // Before any work: an output that is an input, or two outputs on one file, or a bad path costs nothing.
        const std::vector<harness::NamedPath> inputs = input_paths(o);
        std::vector<harness::NamedPath> outputs;
        if (o.checkpoint_path) outputs.push_back({"--checkpoint", *o.checkpoint_path});
        if (result_path) outputs.push_back({"--result", *result_path});
        harness::check_outputs("mwsep run", inputs, outputs);
    }
    // A resumable run stops cleanly on SIGINT or SIGTERM from here on: a signal that comes while the inputs
    // and the checkpoint are still being read is kept, and honoured at the integral's first save.
    if (o.checkpoint_path) resume::install_stop_handlers();

    // A GPU run where no GPU can be used says so before it estimates a time on a GPU.
    if (o.backend == "cuda") {
#if defined(MWSEP_WITH_CUDA)
        (void)cuda::device_count();
#else
        throw std::runtime_error(std::string("--backend cuda ") + harness::needs_cuda_build);
#endif
    }
    // What the run will cost, before anything long starts (the work unit alone is read twice: it is small).
    std::fprintf(stderr, "mwsep: %s\n",
                 work_summary(model::build_model(read_work_unit(o), o.r_binning), o).c_str());

    const auto t0 = std::chrono::steady_clock::now();
    auto backend_ready = start_backend(o);  // CUDA start-up overlaps reading the files
    const Inputs in = load_inputs(o);
    const auto t1 = std::chrono::steady_clock::now();
    const double load_seconds = std::chrono::duration<double>(t1 - t0).count();
    // The backend's host work (CUDA: the integral's host tables, the star table) while the devices start;
    // a failure there is thrown by evaluate(), after a failure to start the devices would have been.
    EarlyWork early = prepare_early(in, o);
    const auto t2 = std::chrono::steady_clock::now();
    backend_ready.get();
    const double wait_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count();
    harness::ProgressBar bar("integrating");
    RunResult r;
    try {
        r = evaluate(in, o, [&](std::size_t done, std::size_t total) {
            bar.update(done, total);
            if (hooks.progress) hooks.progress(done, total);
        }, &early);
    } catch (const resume::Interrupted& e) {
        std::fprintf(stderr, "\nmwsep: %s\n", e.what());
        return 128 + e.signal;  // the shell's convention for a process ended by that signal
    }
    r.load_seconds = load_seconds;
    r.device_wait_seconds = wait_seconds;
    r.host_prepare_seconds = early.seconds;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const std::string engine = o.backend == "cpu" ? "cpu " + o.cpu_integrator : "cuda " + o.variant;
    const std::int64_t output_ns = monotonic_ns();  // the end of the process's work, before any output
    // The result as one JSON object: on standard output with --json, into the --result file if named.
    const auto write_json = [&](std::ostream& out) {
        harness::JsonObject j(out);
        j.number("background_integral", r.integrals.background)
            .numbers("stream_integrals", r.integrals.streams)
            .number("likelihood", r.likelihood.likelihood)
            .number("background_likelihood", r.likelihood.background_likelihood)
            .numbers("stream_only_likelihoods", r.likelihood.stream_only)
            .integer("number_stars", static_cast<long long>(in.stars.size()))
            .integer("zero_probability_stars", r.likelihood.zero_probability_stars)
            .number("seconds", wall);
        auto t = j.object("timings");
        t.number("load", r.load_seconds)
            .number("device_start_wait", r.device_wait_seconds)
            .number("prepare", r.prepare_seconds)
            .number("integral", r.integral_seconds)
            .number("likelihood", r.likelihood_seconds)
            .number("evaluate", r.total_seconds)
            .number("process", static_cast<double>(output_ns - main_entry_ns()) * 1e-9)
            .number("host_prepare", r.host_prepare_seconds);
        t.close();
        // The process's own time line on CLOCK_MONOTONIC: main() entered, and the result about to be written.
        // A caller that starts the process reads the same clock, and so gets the start-up before main() and
        // the exit after the output (destructors, the CUDA runtime's teardown, the process's end).
        auto c = j.object("clock");
        c.integer("main_entry_monotonic_ns", static_cast<long long>(main_entry_ns()))
            .integer("output_monotonic_ns", static_cast<long long>(output_ns));
        c.close();
        auto s = j.object("settings");
        s.string("astronomy_parameters", o.astronomy_path)
            .string("stars", o.stars_path)
            .string("backend", o.backend)
            .string("engine", engine)
            .string("r_binning", r_binning_name(o.r_binning))
            .string("device", r.device);
        if (o.backend == "cpu" && o.cpu_integrator != "reference") s.integer("threads", cpu::resolve_threads(o.threads));
        s.close();
        if (o.backend == "cuda") {  // what the evaluation took on the (first) device
            auto m = j.object("device_memory");
            m.integer("integral_bytes", static_cast<long long>(r.integral_device_bytes))
                .integer("star_bytes", static_cast<long long>(r.star_device_bytes));
            m.close();
        }
        if (r.controller) {  // the compressed quadrature: what its error controller did
            const auto& c = *r.controller;
            const auto counts = [](const auto& v) { return std::vector<double>(v.begin(), v.end()); };  // exact below 2^53
            auto k = j.object("controller");
            k.string("algorithm", "compressed line-of-sight quadrature (not the exact sum)")
                .number("tolerance", c.tolerance)
                .numbers("stated_relative_error", c.stated_error)
                .integer("fallbacks", c.total_fallbacks())
                .numbers("fallback_cells", counts(c.fallbacks))
                .numbers("cells", counts(c.cells))
                .numbers("rule_nodes", counts(c.ladder))
                .number("rule_seconds", c.rule_seconds);
            k.close();
        }
        j.close();
        out << '\n';
    };
    if (result_path) harness::write_file_atomically(*result_path, write_json);
    if (opt.has("--json")) {
        write_json(std::cout);
        return 0;
    }
    std::printf("work unit               %s\n", o.astronomy_path.c_str());
    std::printf("stars                   %s (%zu)\n", o.stars_path.c_str(), in.stars.size());
    std::printf("computed by             %s on %s\n", engine.c_str(), r.device.c_str());
    std::printf("r binning               %s\n", r_binning_name(o.r_binning).c_str());
    std::printf("background_integral     %.17g\n", r.integrals.background);
    for (std::size_t s = 0; s < r.integrals.streams.size(); ++s)
        std::printf("stream_integral[%zu]      %.17g\n", s + 1, r.integrals.streams[s]);
    std::printf("background_likelihood   %.17g\n", r.likelihood.background_likelihood);
    for (std::size_t s = 0; s < r.likelihood.stream_only.size(); ++s)
        std::printf("stream_only_likelihood[%zu] %.17g\n", s + 1, r.likelihood.stream_only[s]);
    std::printf("zero_probability_stars  %lld\n", r.likelihood.zero_probability_stars);
    std::printf("likelihood              %.17g\n", r.likelihood.likelihood);
    std::printf("seconds                 %.3f (load %.3f, integral %.3f, likelihood %.3f)\n", wall, r.load_seconds,
                r.integral_seconds, r.likelihood_seconds);
    return 0;
}

int command_generate(const Args& args) {
    harness::CommandHelp help;
    help.about = "Samples a synthetic star catalogue from the work unit's model (background and streams, by rejection "
                 "under an envelope grid); the same seed gives the same file.";
    const Options opt(
        args,
        input_options(false,
                      {opt::required("-o", "FILE", "where to write the catalogue"),
                       opt::value("--count", "N", "the number of stars", "100000"),
                       opt::value("--seed", "N", "the random seed", "1"),
                       opt::value("--envelope", "MUxNUxR", "the rejection-sampling envelope grid", "160x16x70"),
                       opt::value("--threads", "N", "threads for the envelope (no effect on the result)", "all cores"),
                       opt::value("--labels", "FILE",
                                  "also write each star's true component (CSV star,component: 0 the background, k "
                                  "stream k), the truth `mwsep separate --labels` compares with",
                                  "none")}),
        "mwsep generate", help);
    const RunOptions o = input_run_options(opt, false);
    const std::string out_path = opt.require("-o");
    generate::Options g;
    g.count = static_cast<std::size_t>(opt.integer("--count", 100000, 1));
    g.seed = static_cast<std::uint64_t>(opt.integer("--seed", 1, 0));
    g.threads = static_cast<int>(opt.integer("--threads", 0, 0, INT_MAX));
    if (opt.has("--envelope")) parse_envelope(opt, g);
    // Checked before any work: writing the catalogue over an input would destroy it.
    // A missing or read-only directory is found now, not after the whole generation.
    std::vector<harness::NamedPath> inputs{{"-a", o.astronomy_path}};
    if (o.search_path) inputs.push_back({"--search-parameters", *o.search_path});
    std::vector<harness::NamedPath> outputs{{"-o", out_path}};
    if (opt.has("--labels")) outputs.push_back({"--labels", opt.text("--labels")});
    harness::check_outputs("mwsep generate", inputs, outputs);
    // The catalogue is held in memory (three doubles a star) and written as text (about 60 bytes a star).
    harness::check_host_bytes(opt, "--count", 90.0 * static_cast<double>(g.count), "the catalogue and its text");
    const auto setup = checked_setup(read_work_unit(o), o);
    const auto report = generate::generate_catalogue(setup, g);
    // Through a temporary and a rename: a failed or interrupted write keeps the previous catalogue.
    harness::write_file_atomically(out_path, [&](std::ostream& out) { model::write_stars(out, report.stars); });
    if (opt.has("--labels"))
        harness::write_file_atomically(opt.text("--labels"), [&](std::ostream& out) { generate::write_labels(out, report); });
    std::fprintf(stderr, "mwsep generate: wrote %zu stars to %s (seed %llu; background %zu", report.stars.size(),
                 out_path.c_str(), static_cast<unsigned long long>(g.seed), report.per_component[0]);
    for (std::size_t c = 1; c < report.per_component.size(); ++c)
        std::fprintf(stderr, ", stream %zu %zu", c, report.per_component[c]);
    std::fprintf(stderr, "; %zu proposals, %zu above the envelope)\n", report.proposals, report.envelope_exceeded);
    return 0;
}

namespace {

/// The model restricted to mu rows [first, last) of its main area; cut areas go with slice 0 only.
model::Model mu_slice(const model::Model& m, int index, int count) {
    model::Model slice = m;
    auto& mu = slice.areas[0].mu;
    const double step = mu.step();
    const int first = static_cast<int>(static_cast<long long>(mu.steps) * index / count);
    const int last = static_cast<int>(static_cast<long long>(mu.steps) * (index + 1) / count);
    mu = {mu.min + first * step, mu.min + last * step, last - first};
    if (index != 0) slice.areas.resize(1);
    return slice;
}

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

}  // namespace

int command_skipping(const Args& args) {
    harness::CommandHelp help;
    help.about = "Prints, per area and stream, how many stream terms the rigorous bound lets the fast integrator and "
                 "the modern kernels skip, as CSV on standard output.";
    const Options opt(args,
                      input_options(false, {opt::value("--work-unit", "NAME", "the name written in the CSV", "the -a file")}),
                      "mwsep skipping", help);
    const RunOptions o = input_run_options(opt, false);
    const std::string wu = opt.text("--work-unit", o.astronomy_path);
    const auto setup = checked_setup(read_work_unit(o), o);
    std::printf("work_unit,area,stream,stream_terms,evaluated_terms,evaluated_fraction\n");
    for (std::size_t i = 0; i < setup.areas.size(); ++i) {
        const auto& a = setup.areas[i];
        const auto los = geometry::fold_line_of_sight(a);
        const auto active = likelihood::active_stream_bins(setup, a, los, likelihood::stream_skip_thresholds(setup, a, los));
        const double terms = static_cast<double>(a.cells()) * static_cast<double>(los.r_point.size());
        for (std::size_t t = 0; t < active.size(); ++t) {
            const double evaluated = static_cast<double>(active[t]) * los.block;
            std::printf("%s,%zu,%zu,%.0f,%.0f,%.6f\n", wu.c_str(), i, t + 1, terms, evaluated, evaluated / terms);
        }
    }
    return 0;
}

/// The progress of bench-cpu over all its samples, in quadrature points: the finished samples' points plus
/// the running sample's share, which the integrator reports as it goes. The total grows should the stop rule
/// take more samples than the minimum the estimate counted.
class PointsProgress {
public:
    PointsProgress(std::string label, double planned_points) : bar_(std::move(label), true), planned_(planned_points) {}
    /// The running sample has done @p fraction of its @p points.
    void running(double fraction, double points) {
        const double done = finished_ + fraction * points;
        const double total = std::max(planned_, finished_ + points);
        bar_.update(static_cast<std::size_t>(1e6 * done / total), 1000000);
    }
    /// A sample of @p points has finished.
    void finished(double points) {
        finished_ += points;
        running(0, 0);
    }

private:
    harness::ProgressBar bar_;
    double planned_;
    double finished_ = 0;
};

/// bench-cpu --slice-load: the cost of running single-core slices concurrently. Slice 0 runs alone on one
/// thread, then while every other slice runs on a thread of its own (one measurement each, on the engine);
/// its thread CPU time and wall time in both modes show how much a loaded host (shared caches, memory
/// bandwidth, turbo) slows one slice, which the sum of loaded slices' CPU times (the "one core" baseline of
/// cpu_vs_gpu_cpu) includes. The engine times the wall time of slice 0; its CPU time is kept beside it.
int slice_load(const Options& opt, const harness::MeasureOptions& measure, harness::Deadline& deadline,
               const std::vector<std::string>& which, const std::vector<geometry::IntegrationSetup>& parts,
               const std::string& wu, const std::string& experiment, const std::string& cpu_name, double slice_points) {
    std::unique_ptr<harness::CsvAppender> csv;
    if (opt.has("--csv"))
        csv = std::make_unique<harness::CsvAppender>(
            opt.text("--csv"), harness::with_host_timing_columns({"experiment", "integrator", "mode", "slice", "slices",
                                                                  "work_unit", "repeat", "seconds", "cpu_seconds", "host_cpu"}));
    const int slices = static_cast<int>(parts.size());
    const auto single = std::count_if(which.begin(), which.end(), [](const std::string& n) { return n != "fastN"; });
    PointsProgress progress("mwsep bench-cpu --slice-load", 2.0 * static_cast<double>(single) * measure.stop.min_samples * slice_points);
    std::string finished;
    std::printf("%-10s %-7s %7s %12s %12s %8s\n", "integrator", "mode", "slices", "wall_s", "cpu_s", "samples");
    for (const std::string& name : which) {
        if (name == "fastN") continue;  // a multithreaded run has no single-core slices
        const auto run = [&](const geometry::IntegrationSetup& s, const model::ProgressFn& p) {
            return name == "reference" ? cpu::integrate_reference(s, p) : cpu::integrate_fast(s, 1, p);
        };
        for (const std::string mode : {"alone", "loaded"}) {
            struct Taken { double wall, cpu; };
            std::vector<Taken> taken;
            const harness::Measurement m = harness::measure_host_samples(measure, [&] {
                Taken t{0, 0};
                const auto time_slice = [&](std::size_t i) {
                    const auto t0 = std::chrono::steady_clock::now();
                    const double c0 = thread_cpu_seconds();
                    // Slice 0's own progress stands for the sample's (the slices are of one size).
                    (void)run(parts[i], i == 0 ? model::ProgressFn([&](std::size_t d, std::size_t n) {
                        progress.running(n ? double(d) / double(n) : 0.0, slice_points);
                    }) : model::ProgressFn());
                    if (i == 0) {
                        t.cpu = thread_cpu_seconds() - c0;
                        t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    }
                };
                if (mode == "alone") time_slice(0);
                else cpu::parallel_for(static_cast<std::size_t>(slices), slices, time_slice);
                progress.finished(slice_points);
                taken.push_back(t);
                return t.wall * 1e3;
            }, deadline);
            std::vector<double> cpu_times;
            for (std::size_t i = 0; i < m.samples.size(); ++i) {
                const Taken& t = taken.at(static_cast<std::size_t>(m.samples[i].attempt));
                cpu_times.push_back(t.cpu);
                if (csv)
                    csv->row(harness::with_host_timing_values(
                        {experiment, name == "fast1" ? "fast" : name, mode, "0", std::to_string(slices), wu,
                         std::to_string(i), harness::csv_number(t.wall), harness::csv_number(t.cpu), cpu_name},
                        m, i));
            }
            std::printf("%-10s %-7s %7d %12.4f %12.4f %8zu\n", name.c_str(), mode.c_str(), slices, m.summary().median / 1e3,
                        harness::summarize(cpu_times).median, m.samples.size());
            std::fflush(stdout);
            finished += (finished.empty() ? "" : ", ") + name + " " + mode;
            deadline.note(finished + (csv ? " (their rows are in the CSV)" : ""));
        }
    }
    return 0;
}

int command_bench_cpu(const Args& args) {
    // An evaluation takes seconds to minutes: three samples unless more are asked for.
    harness::MeasureOptions defaults;
    defaults.stop.min_samples = 3;
    defaults.stop.max_samples = 3;
    defaults.stop.time_limit_s = 3600;
    std::vector<OptionSpec> specs = input_options(
        false,
        {opt::value("--integrators", "LIST",
                    "the configurations to time: a comma-separated subset of reference (the reference integrator), "
                    "fast1 (the fast one on one thread) and fastN (the fast one on --threads threads)",
                    "reference,fast1,fastN"),
         opt::value("--threads", "N", "the thread count of fastN", "all cores"),
         opt::value("--slices", "N",
                    "run each single-thread configuration as N concurrent single-threaded slices of the mu range; its "
                    "cost is then the sum of their CPU times",
                    "1"),
         opt::flag("--slice-load", "instead: time slice 0 of --slices N alone, then while all N slices run together "
                                   "(what the summed CPU time of loaded slices costs per slice)"),
         opt::value("--work-unit", "NAME", "the work unit's name written in the CSV", "the -a file"),
         opt::value("--experiment", "NAME", "the experiment's name written in the CSV", "bench_cpu"),
         opt::csv("one row per sample")});
    for (auto& s : harness::host_measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about = "Times the CPU integrators on a work unit: quadrature points per second, and per core, of the "
                 "reference integrator and the fast one on one thread and on every core. It prints its estimate "
                 "first and its progress while it runs.";
    const Options opt(args, specs, "mwsep bench-cpu", help);
    const harness::MeasureOptions measure = harness::parse_measure_options(opt, defaults);
    if (harness::print_criterion_if_asked(opt, "mwsep bench-cpu", measure,
                                          "one CPU evaluation of the integrals, host steady clock (wall time)"))
        return 0;
    // A user's --time-limit bounds the whole command, counted from here.
    harness::Deadline deadline = opt.has("--time-limit") ? harness::Deadline(measure.stop.time_limit_s) : harness::Deadline();
    const RunOptions o = input_run_options(opt, false);
    const int slices = static_cast<int>(opt.integer("--slices", 1, 1, INT_MAX));
    const int threads = static_cast<int>(opt.integer("--threads", 0, 0, INT_MAX));
    const std::vector<std::string> which = opt.choices("--integrators", {"reference", "fast1", "fastN"},
                                                       "reference,fast1,fastN");
    const std::string wu = opt.text("--work-unit", o.astronomy_path);
    const std::string experiment = opt.text("--experiment", "bench_cpu");
    if (opt.has("--slice-load") && slices < 2) throw opt.error("--slice-load", "needs --slices 2 or more");
    // Before the tables are built: the CSV is no input and can be written.
    if (opt.has("--csv")) harness::check_outputs("mwsep bench-cpu", input_paths(o), {{"--csv", opt.text("--csv")}});
    const model::Model m = model::build_model(read_work_unit(o), o.r_binning);
    check_work(m, o.force);
    if (slices > m.areas[0].mu.steps)
        throw opt.error("--slices", "must be between 1 and the number of mu steps (" +
                                        std::to_string(m.areas[0].mu.steps) + "), found '" + opt.text("--slices") + "'");
    const auto setup = geometry::make_setup(m);
    const int all = cpu::resolve_threads(threads);
    const int cores = cpu::resolve_threads(0);
    const std::size_t points = quadrature_points(setup);
    const std::string cpu_name = host_cpu_name();
    std::vector<geometry::IntegrationSetup> parts;
    for (int i = 0; slices > 1 && i < slices; ++i) parts.push_back(geometry::make_setup(mu_slice(m, i, slices)));

    struct Config { std::string name; int threads; };
    std::vector<Config> configs;
    // The configurations run in the fixed order reference, fast1, fastN, whatever the order given.
    const auto chosen = [&](const char* name) { return std::find(which.begin(), which.end(), name) != which.end(); };
    if (chosen("reference")) configs.push_back({"reference", 1});
    if (chosen("fast1")) configs.push_back({"fast", 1});
    if (chosen("fastN")) configs.push_back({"fast", all});
    {
        // What the command will cost, before it starts: the minimum samples of every configuration at the
        // rates of the committed host (a slice runs alone on a core while there is one for each).
        const double samples = measure.stop.min_samples;
        const double concurrent = std::min(slices, cores);
        double seconds = 0;
        for (const auto& c : configs) {
            const double rate = c.name == "reference" ? reference_points_per_second
                                                      : fast_points_per_second_per_thread * std::min(c.threads, cores);
            if (opt.has("--slice-load")) {
                if (c.threads == 1) seconds += samples * (1.0 / slices + 1.0 / concurrent) * double(points) / rate;
            } else {
                seconds += samples * double(points) / (c.threads == 1 && slices > 1 ? rate * concurrent : rate);
            }
        }
        std::fprintf(stderr,
                     "mwsep bench-cpu: %zu configuration(s) x %d samples or more of %.3g quadrature points per component: "
                     "about %s at the committed host's rates (reference %.2g, fast %.2g points/s per "
                     "thread)%s\n",
                     configs.size(), measure.stop.min_samples, double(points), harness::duration_text(seconds).c_str(),
                     reference_points_per_second, fast_points_per_second_per_thread,
                     deadline.set() && seconds > deadline.limit_s() ? "; --time-limit stops it before" : "");
    }
    if (opt.has("--slice-load"))
        return slice_load(opt, measure, deadline, which, parts, wu, experiment, cpu_name, double(points) / slices);
    std::unique_ptr<harness::CsvAppender> csv;
    if (opt.has("--csv"))
        csv = std::make_unique<harness::CsvAppender>(
            opt.text("--csv"),
            harness::with_host_timing_columns({"experiment", "integrator", "threads", "slices", "work_unit", "repeat",
                                               "seconds", "cpu_seconds", "quadrature_points", "points_per_second",
                                               "points_per_second_per_core", "background_integral", "host_cpu"}));
    PointsProgress progress("mwsep bench-cpu", double(configs.size()) * measure.stop.min_samples * double(points));
    std::printf("%-10s %7s %7s %12s %12s %14s %18s\n", "integrator", "threads", "slices", "median_s", "cpu_s",
                "points/s", "points/s/core");
    std::string finished;
    for (const auto& c : configs) {
        // A single-core configuration may be split into concurrent single-threaded slices; its cost is
        // then the sum of the slices' CPU times, each measured, never extrapolated.
        const bool sliced = c.threads == 1 && slices > 1;
        struct Taken { double seconds, cpu_seconds, background; };
        std::vector<Taken> taken;
        const auto run = [&](const geometry::IntegrationSetup& s, const model::ProgressFn& p) {
            return c.name == "reference" ? cpu::integrate_reference(s, p) : cpu::integrate_fast(s, c.threads, p);
        };
        const model::ProgressFn report = [&](std::size_t d, std::size_t n) {
            progress.running(n ? double(d) / double(n) : 0.0, double(points));
        };
        // The engine times the wall clock of each sample; the CPU times are kept beside it.
        const harness::Measurement meas = harness::measure_host_samples(measure, [&] {
            const auto t0 = std::chrono::steady_clock::now();
            double cpu_seconds = 0, background = 0;
            if (sliced) {
                std::vector<double> slice_cpu(slices), slice_bg(slices);
                cpu::parallel_for(static_cast<std::size_t>(slices), slices, [&](std::size_t i) {
                    const double c0 = thread_cpu_seconds();
                    slice_bg[i] = run(parts[i], {}).background;
                    slice_cpu[i] = thread_cpu_seconds() - c0;
                });
                for (int i = 0; i < slices; ++i) cpu_seconds += slice_cpu[i], background += slice_bg[i];
            } else {
                const double c0 = thread_cpu_seconds();
                background = run(setup, report).background;
                cpu_seconds = c.threads == 1 ? thread_cpu_seconds() - c0 : NAN;
            }
            const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            progress.finished(double(points));
            taken.push_back({sec, cpu_seconds, background});
            return sec * 1e3;
        }, deadline);
        std::vector<double> wall, cpu_times;
        for (std::size_t rep = 0; rep < meas.samples.size(); ++rep) {
            const Taken& k = taken.at(static_cast<std::size_t>(meas.samples[rep].attempt));
            // One core's rate: the CPU time when sliced, else the wall time over the threads used.
            const double core_seconds = sliced ? k.cpu_seconds : k.seconds * c.threads;
            wall.push_back(k.seconds);
            cpu_times.push_back(sliced ? k.cpu_seconds : k.seconds);
            if (csv)
                csv->row(harness::with_host_timing_values(
                    {experiment, c.name, std::to_string(c.threads), std::to_string(sliced ? slices : 1), wu,
                     std::to_string(rep), harness::csv_number(k.seconds), harness::csv_number(k.cpu_seconds),
                     std::to_string(points), harness::csv_number(points / k.seconds),
                     harness::csv_number(points / core_seconds), harness::csv_number(k.background), cpu_name},
                    meas, rep));
        }
        const auto w = harness::summarize(wall);
        const auto cs = harness::summarize(cpu_times);
        const double per_core = sliced ? points / cs.median : points / w.median / c.threads;
        std::printf("%-10s %7d %7d %12.4f %12.4f %14.4g %18.4g\n", c.name.c_str(), c.threads, sliced ? slices : 1,
                    w.median, cs.median, points / w.median, per_core);
        std::fflush(stdout);
        finished += (finished.empty() ? "" : ", ") + c.name + (c.name == "fast" ? std::to_string(c.threads) : "");
        deadline.note(finished + (csv ? " (their rows are in the CSV)" : ""));
    }
    std::printf("quadrature points per component: %zu; CPU: %s\n", points, cpu_name.c_str());
    return 0;
}

int command_variants(const Args& args) {
#if defined(MWSEP_WITH_CUDA)
    harness::CommandHelp help;
    help.about = "Lists every kernel variant: registers, spills and stack from the compiler's report for the build's "
                 "architecture and, on a machine with a GPU, registers, local and shared memory and theoretical "
                 "occupancy. Without a GPU the GPU columns are left out.";
    const Options opt(args,
                      {opt::value("--streams", "S", "the stream count of the kernel instances listed", "3"),
                       opt::value("--threads", "T", "threads per block, for shared memory and occupancy", "64"),
                       opt::value("--report", "FILE", "the compiler's resource report",
                                  "kernel_resources.txt beside the program")},
                      "mwsep variants", help);
    cuda::VariantsOptions v;
    v.streams = static_cast<int>(opt.integer("--streams", 3, 0, constants::max_gpu_streams));
    v.threads = static_cast<int>(opt.integer("--threads", 64, 1, 1024));
    v.report = opt.text("--report");
    return cuda::list_variants(v);
#else
    (void)args;
    throw std::runtime_error(harness::needs_cuda_build);
#endif
}

int command_bench(const Args& args) {
#if defined(MWSEP_WITH_CUDA)
    const harness::MeasureOptions defaults;  // 5 to 50 samples, 0.5 %, 30 s, warm, throttled samples dropped
    std::vector<harness::OptionSpec> specs = input_options(
        true,
        {opt::value("--variants", "LIST",
                    "comma-separated variant names or patterns (*-fast-unrolled-f64), or all; all and patterns select "
                    "the exact-sum variants (compressed-f64, a different algorithm, only when named)",
                    "all"),
         opt::value("--expect", "L", "the CPU likelihood every timed run is checked against", "computed here"),
         opt::value("--threads-per-block", "N", "threads per block of the kernels", "64"),
         opt::value("--blocks-per-launch", "N", "blocks per launch", "0: all blocks"),
         opt::value("--blocks-per-sm", "N",
                    "thesis variants: N resident blocks per SM imposed with shared-memory ballast (the GT200's 16 KB "
                    "per SM of thesis 4.3)",
                    "0: none"),
         opt::flag("--register-cap", "time the 48-register builds"),
         opt::flag("--aos", "the array-of-structures star layout (default: structure of arrays)"),
         opt::value("--sm-count", "N", "run on N SMs only (a CUDA green context: an emulation of a smaller GPU)",
                    "0: the whole GPU"),
         opt::flag("--all-devices", "modern variants: split the mu range over every GPU (sm_count: their sum)"),
         opt::value("--slices", "N", "modern variants only: split each area into N slices", "one per GPU"),
         opt::value("--work-unit", "NAME", "the work unit's name written in every row", "the -a file"),
         opt::value("--experiment", "NAME", "the experiment's name written in every row", "bench"),
         opt::csv("one row per sample"),
         opt::value("--meta", "FILE", "write the device record (GPU, clocks, driver) as JSON to FILE", "none")});
    for (auto& s : harness::measure_option_specs(defaults)) specs.push_back(std::move(s));
    harness::CommandHelp help;
    help.about = "Times CUDA kernel variants: after one warm-up per variant, samples under the stop rule, each "
                 "evaluation's likelihood checked against the CPU's. Exit status 1 when a timed run disagreed.";
    const Options opt(args, specs, "mwsep bench", help);
    cuda::BenchOptions b;
    b.measure = harness::parse_measure_options(opt, defaults);
    if (harness::print_criterion_if_asked(opt, "mwsep bench", b.measure,
                                          "integral and likelihood kernels of one evaluation, CUDA events"))
        return 0;
    const RunOptions o = input_run_options(opt, true);
    b.command = "mwsep bench";
    for (const auto& a : args) b.command += " " + a;
    try {
        b.variants = cuda::select_variants(opt.text("--variants", "all"));
    } catch (const harness::UnknownName& e) {
        throw harness::OptionError(std::string("mwsep bench: --variants: ") + e.what());
    }
    b.expected = opt.real("--expect", NAN);
    b.sm_count = static_cast<int>(opt.integer("--sm-count", 0, 0, INT_MAX));
    b.launch.threads_per_block = static_cast<int>(opt.integer("--threads-per-block", 64, 32, 1024));
    b.launch.blocks_per_launch = static_cast<int>(opt.integer("--blocks-per-launch", 0, 0, INT_MAX));
    b.launch.register_cap = opt.has("--register-cap");
    b.launch.slices = static_cast<int>(opt.integer("--slices", 0, 0, INT_MAX));
    b.launch.blocks_per_sm = static_cast<int>(opt.integer("--blocks-per-sm", 0, 0, 64));
    b.aos = opt.has("--aos");
    b.all_devices = opt.has("--all-devices");
    b.csv_path = opt.text("--csv");
    b.meta_path = opt.text("--meta");
    b.work_unit = opt.text("--work-unit", o.astronomy_path);
    b.experiment = opt.text("--experiment", "bench");
    // Output paths are checked before the devices and the inputs are touched.
    {
        std::vector<harness::NamedPath> outputs;
        if (!b.csv_path.empty()) outputs.push_back({"--csv", b.csv_path});
        if (!b.meta_path.empty()) outputs.push_back({"--meta", b.meta_path});
        harness::check_outputs("mwsep bench", input_paths(o), outputs);
    }
    if (b.all_devices && b.sm_count > 0) throw opt.error("--all-devices", "and --sm-count exclude each other");
    if (b.launch.blocks_per_sm > 0)
        for (const cuda::VariantInfo* v : b.variants)
            if (v->kernels.axes.family != "thesis")
                throw opt.error("--blocks-per-sm", "applies to the thesis's variants only; " + v->name + " is not one");
    if (opt.has("--slices"))
        for (const cuda::VariantInfo* v : b.variants)
            if (!v->family->spreads_over_devices())
                throw opt.error("--slices", "applies to the modern variants only; " + v->name + " runs on one device");
    const Inputs in = load_inputs(o);
    return cuda::run_bench(b, in.setup, in.stars);
#else
    (void)args;
    throw std::runtime_error(harness::needs_cuda_build);
#endif
}

}  // namespace mwsep::app
