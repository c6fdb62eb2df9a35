#include "mwsep/app/evaluate.hpp"

#include <chrono>
#include <fstream>
#include <stdexcept>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"

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

Inputs load_inputs(const RunOptions& o) {
    Inputs in;
    in.file = read_work_unit(o);
    in.setup = geometry::make_setup(model::build_model(in.file, o.r_binning));
    in.stars = model::read_stars(o.stars_path);
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

RunResult evaluate(const Inputs& in, const RunOptions& o, const model::ProgressFn& progress) {
    RunResult r;
    const auto t0 = std::chrono::steady_clock::now();
    if (o.backend == "cpu") {
        const bool reference = o.cpu_integrator == "reference";
        if (!reference && o.cpu_integrator != "fast")
            throw std::invalid_argument("unknown CPU integrator '" + o.cpu_integrator + "' (expected reference or fast)");
        r.integrals = reference ? cpu::integrate_reference(in.setup, progress)
                                : cpu::integrate_fast(in.setup, o.threads, progress);
        r.integral_seconds = seconds_since(t0);
        const auto t1 = std::chrono::steady_clock::now();
        r.likelihood = reference ? cpu::likelihood_reference(in.setup, in.stars, r.integrals)
                                 : cpu::likelihood_fast(in.setup, in.stars, r.integrals, o.threads);
        r.likelihood_seconds = seconds_since(t1);
        r.device = host_cpu_name() + (reference ? " (1 thread)"
                                                : " (" + std::to_string(cpu::resolve_threads(o.threads)) + " threads)");
    } else if (o.backend == "cuda") {
#if defined(MWSEP_WITH_CUDA)
        const auto g = cuda::evaluate(in.setup, in.stars, o.variant, o.device);
        r.integrals = g.integrals;
        r.likelihood = g.likelihood;
        r.integral_seconds = g.integral_seconds;
        r.likelihood_seconds = g.likelihood_seconds;
        r.prepare_seconds = g.prepare_seconds;
        r.device = g.device;
#else
        throw std::runtime_error("this build has no CUDA backend (no CUDA compiler was found when it was configured)");
#endif
    } else {
        throw std::invalid_argument("unknown backend '" + o.backend + "' (expected cpu or cuda)");
    }
    r.total_seconds = seconds_since(t0);
    return r;
}

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
