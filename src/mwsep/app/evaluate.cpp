#include "mwsep/app/evaluate.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <future>
#include <optional>
#include <stdexcept>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"
#include "mwsep/resume/checkpoint.hpp"

#if defined(MWSEP_WITH_CUDA)
#include "mwsep/cuda/backend.hpp"
#endif

namespace mwsep::app {
namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

model::AstronomyParameters read_work_unit(const RunOptions& o) {
    auto file = model::read_astronomy_parameters(o.astronomy_path);
    if (o.search_path && o.search_vector)
        throw std::invalid_argument("give the parameter vector either as a file or as --np/-p, not both");
    if (o.search_path) model::apply_search_vector(file, model::read_search_parameters(*o.search_path));
    if (o.search_vector) model::apply_search_vector(file, *o.search_vector);
    return file;
}

WorkSize work_size(const model::Model& m) {
    // In doubles: 1e5 x 1e5 x 1e3 x 120 overflows every integer type.
    WorkSize w;
    const double conv = m.convolve;
    for (const auto& a : m.areas) {
        const double mu = a.mu.steps, nu = a.nu.steps, r = a.r.steps;
        w.points += mu * nu * r * conv;
        // Per cell its sky direction (4 doubles); per bin of mu, nu and r a few constants; per r bin and
        // convolution point a distance and a weight, twice (the per-bin and the folded line of sight).
        w.table_bytes += 8.0 * (4 * mu * nu + 2 * mu + 2 * nu + 3 * r + 4 * r * conv);
    }
    return w;
}

void check_work(const model::Model& m, bool force) {
    if (force) return;
    const WorkSize w = work_size(m);
    const auto num = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", v);
        return std::string(buf);
    };
    // The keys that make the work large, with their values, so that the message says what to change.
    std::string keys;
    for (std::size_t i = 0; i < m.areas.size(); ++i) {
        const auto& a = m.areas[i];
        keys += std::string(keys.empty() ? "" : "; ") + (i == 0 ? "the wedge" : "cut " + std::to_string(i)) +
                ": mu steps " + std::to_string(a.mu.steps) + " x nu steps " + std::to_string(a.nu.steps) +
                " x r steps " + std::to_string(a.r.steps);
    }
    keys += "; convolve " + std::to_string(m.convolve);
    const std::string advice = " (" + keys + "); give --force to compute it anyway";
    if (m.convolve > max_convolve)
        throw std::runtime_error("convolve " + std::to_string(m.convolve) + " is above the limit of " +
                                 std::to_string(max_convolve) +
                                 " (its Gauss-Legendre set-up grows with the square of it); give --force to compute it anyway");
    if (w.points > max_quadrature_points)
        throw std::runtime_error("the integral has " + num(w.points) + " quadrature points per component, above the limit of " +
                                 num(max_quadrature_points) + advice);
    if (w.table_bytes > max_table_bytes)
        throw std::runtime_error("the tables need about " + num(w.table_bytes / (1ull << 30)) + " GiB, above the limit of " +
                                 num(max_table_bytes / (1ull << 30)) + " GiB" + advice);
}

std::string work_summary(const model::Model& m, const RunOptions& o) {
    const WorkSize w = work_size(m);
    if ((o.backend == "cpu" && o.cpu_integrator == "compressed") ||
        (o.backend == "cuda" && o.variant.rfind("compressed-", 0) == 0)) {
        // A different algorithm: its work depends on what the error controller accepts, so no rate applies.
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "%.3g quadrature points per component, tables about %.3g MiB; the compressed quadrature evaluates "
                      "at most a few hundred points per cell and component where its controller accepts (no time estimate)",
                      w.points, w.table_bytes / (1 << 20));
        return buf;
    }
    double rate = 0;
    std::string how;
    if (o.backend == "cpu" && o.cpu_integrator == "reference") {
        rate = reference_points_per_second;
        how = "the reference CPU integrator";
    } else if (o.backend == "cpu") {
        const int threads = cpu::resolve_threads(o.threads);
        const bool extended = o.cpu_integrator == "extended";
        rate = (extended ? extended_points_per_second_per_thread : fast_points_per_second_per_thread) * threads;
        how = std::string(extended ? "the extended-precision" : "the fast") + " CPU integrator on " +
              std::to_string(threads) + " threads";
    } else {
        const bool modern = o.variant.rfind("modern-", 0) == 0;
        rate = modern ? modern_gpu_points_per_second : thesis_gpu_points_per_second;
        how = o.variant + " on one H200";
    }
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%.3g quadrature points per component, tables about %.3g MiB; the integral takes about %s with %s",
                  w.points, w.table_bytes / (1 << 20), [&] {
                      const double t = w.points / rate;
                      char b[32];
                      if (t < 120) std::snprintf(b, sizeof b, "%.2g s", t);
                      else if (t < 7200) std::snprintf(b, sizeof b, "%.2g min", t / 60);
                      else std::snprintf(b, sizeof b, "%.2g h", t / 3600);
                      return std::string(b);
                  }().c_str(), how.c_str());
    return buf;
}

geometry::IntegrationSetup checked_setup(const model::AstronomyParameters& file, const RunOptions& o) {
    const model::Model m = model::build_model(file, o.r_binning);
    check_work(m, o.force);
    // The cells' directions on every core the run may use (--threads on the CPU backend), while the stars are
    // read and the devices start.
    return geometry::make_setup(m, static_cast<unsigned>(cpu::resolve_threads(o.threads)));
}

Inputs load_inputs(const RunOptions& o) {
    Inputs in;
    in.file = read_work_unit(o);
    // The stars are read on another thread while the tables are built; the errors come in the order of a
    // serial read: the work unit's and the size check's first (the stars' thread is then waited for and its
    // outcome dropped), the stars' after.
    auto stars = std::async(std::launch::async, [&o] { return model::read_stars(o.stars_path); });
    in.setup = checked_setup(in.file, o);
    in.stars = stars.get();
    return in;
}

std::future<void> start_backend(const RunOptions& o) {
#if defined(MWSEP_WITH_CUDA)
    if (o.backend == "cuda") {
        const std::string variant = o.variant;
        const int device = o.device;
        return std::async(std::launch::async, [variant, device] { cuda::initialise_devices(variant, device); });
    }
#else
    (void)o;  // without the CUDA backend there is nothing to start early
#endif
    std::promise<void> nothing_to_start;
    nothing_to_start.set_value();
    return nothing_to_start.get_future();
}

struct EarlyWork::State {
#if defined(MWSEP_WITH_CUDA)
    cuda::HostWork cuda;  ///< the integral's host tables and the star table
#endif
};

EarlyWork::EarlyWork() = default;
EarlyWork::~EarlyWork() = default;
EarlyWork::EarlyWork(EarlyWork&&) noexcept = default;
EarlyWork& EarlyWork::operator=(EarlyWork&&) noexcept = default;

EarlyWork prepare_early(const Inputs& in, const RunOptions& o) {
    EarlyWork w;
#if defined(MWSEP_WITH_CUDA)
    if (o.backend == "cuda") {
        w.state = std::make_unique<EarlyWork::State>();
        w.state->cuda = cuda::prepare_on_host(in.setup, in.stars, o.variant, true);
        w.seconds = w.state->cuda.seconds;
    }
#else
    (void)in, (void)o;  // without the CUDA backend nothing is done early
#endif
    return w;
}

std::uint64_t run_identity(const RunOptions& o, const std::string& engine) {
    std::uint64_t h = resume::hash_file(o.astronomy_path, resume::fnv1a("mwsep run", 9));
    h = resume::hash_file(o.stars_path, h);
    if (o.search_path) h = resume::hash_file(*o.search_path, h);
    if (o.search_vector) h = resume::fnv1a(o.search_vector->values.data(), o.search_vector->values.size() * sizeof(double), h);
    const std::string settings = engine + "|" + (o.r_binning == model::RBinning::kpc ? "kpc" : "magnitude");
    return resume::fnv1a(settings.data(), settings.size(), h);
}

RunResult evaluate(const Inputs& in, const RunOptions& o, const model::ProgressFn& progress, EarlyWork* early) {
    RunResult r;
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<resume::Checkpoint> checkpoint;
    if (o.checkpoint_path) {
        const std::string engine = o.backend == "cpu" ? "cpu " + o.cpu_integrator : o.backend + " " + o.variant;
        checkpoint.emplace(*o.checkpoint_path, o.checkpoint_interval, run_identity(o, engine), engine);
        checkpoint->on_resume = [&](std::size_t done, std::size_t items) {
            std::fprintf(stderr, "mwsep: resuming from %s: %zu of %zu work items were done\n",
                         o.checkpoint_path->c_str(), done, items);
        };
        checkpoint->also_due = o.checkpoint_due;
        checkpoint->on_saved = o.checkpoint_saved;
        resume::install_stop_handlers();
    }
    resume::Checkpoint* ck = checkpoint ? &*checkpoint : nullptr;
    if (o.backend == "cpu") {
        const bool reference = o.cpu_integrator == "reference";
        const bool compressed = o.cpu_integrator == "compressed";
        const bool extended = o.cpu_integrator == "extended";
        if (!reference && !compressed && !extended && o.cpu_integrator != "fast")
            throw std::invalid_argument("unknown CPU integrator '" + o.cpu_integrator +
                                        "' (expected reference, fast, extended or compressed)");
        if (extended) {
            if (ck) throw std::invalid_argument("the extended-precision CPU integrator takes no checkpoint");
            r.integrals = cpu::integrate_extended(in.setup, o.threads, progress);
        } else if (compressed) {
            if (ck) throw std::invalid_argument("the compressed CPU integrator takes no checkpoint (it takes seconds)");
            r.controller.emplace();
            r.integrals = cpu::integrate_compressed(in.setup, o.threads, {o.compressed_tolerance}, &*r.controller);
        } else {
            r.integrals = reference ? cpu::integrate_reference(in.setup, progress, ck)
                                    : cpu::integrate_fast(in.setup, o.threads, progress, true, ck);
        }
        r.integral_seconds = seconds_since(t0);
        const auto t1 = std::chrono::steady_clock::now();
        r.likelihood = reference ? cpu::likelihood_reference(in.setup, in.stars, r.integrals)
                                 : cpu::likelihood_fast(in.setup, in.stars, r.integrals, o.threads);
        r.likelihood_seconds = seconds_since(t1);
        r.device = host_cpu_name() + (reference ? " (1 thread)"
                                                : " (" + std::to_string(cpu::resolve_threads(o.threads)) + " threads)");
    } else if (o.backend == "cuda") {
#if defined(MWSEP_WITH_CUDA)
        cuda::HostWork* host = early && early->state ? &early->state->cuda : nullptr;
        const auto g = cuda::evaluate(in.setup, in.stars, o.variant, o.device, {}, true, ck, host);
        r.integrals = g.integrals;
        r.likelihood = g.likelihood;
        r.integral_seconds = g.integral_seconds;
        r.likelihood_seconds = g.likelihood_seconds;
        r.prepare_seconds = g.prepare_seconds;
        r.device = g.device;
        r.controller = g.controller;
        r.integral_device_bytes = g.integral_device_bytes;
        r.star_device_bytes = g.star_device_bytes;
#else
        (void)early;
        throw std::runtime_error("this build has no CUDA backend (no CUDA compiler was found when it was configured)");
#endif
    } else {
        throw std::invalid_argument("unknown backend '" + o.backend + "' (expected cpu or cuda)");
    }
    if (ck) ck->finish();  // the run is complete: a later run starts afresh
    r.total_seconds = seconds_since(t0);
    return r;
}

std::int64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

namespace {
std::atomic<std::int64_t> main_entry{0};
}  // namespace

void note_main_entry() { main_entry.store(monotonic_ns()); }

std::int64_t main_entry_ns() { return main_entry.load(); }

std::string host_cpu_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
        }
    }
    return "unknown CPU";
}

}  // namespace mwsep::app
