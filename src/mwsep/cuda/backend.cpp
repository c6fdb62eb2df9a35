#include "mwsep/cuda/backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <optional>
#include <stdexcept>
#include <vector>

#include "harness/device_budget_cuda.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/likelihood_kernel.hpp"
#include "mwsep/math/constants.hpp"
#include "mwsep/tidal_streams.hpp"

namespace mwsep::cuda {
namespace {

/// The devices evaluate() uses: the calling thread's current one (green contexts), every device with
/// double precision for a family that spreads over devices when none is named, otherwise the one
/// select_device() picks.
std::vector<int> devices_for(const VariantInfo& v, int device, bool keep_context) {
    if (keep_context) {
        int dev = 0;
        check(cudaGetDevice(&dev), "read the current device");
        return {dev};
    }
    if (v.family->spreads_over_devices() && device < 0) return ranked_devices(v.kernels.double_precision);
    return {select_device(device, v.kernels.double_precision)};
}

/// The devices evaluate() uses for these arguments and the launch options it uses there: a checkpointed run
/// runs on the first device as one slice.
std::pair<std::vector<int>, LaunchOptions> evaluation_devices(const VariantInfo& v, int device, const LaunchOptions& launch,
                                                              bool checkpointed) {
    std::vector<int> devices = devices_for(v, device, launch.keep_context);
    LaunchOptions l = launch;
    if (checkpointed) {
        devices.resize(1);
        l.slices = 1;
    }
    return {devices, l};
}

/// Refuses @p plans where one does not fit its device.
void require_plans(const std::vector<DevicePlanOf>& plans) {
    for (const auto& p : plans)
        harness::require_device_memory(p.plan, p.device,
                                       "make the work unit's grid (mu, nu or r steps, convolve) or the star catalogue "
                                       "smaller, or free the device (other processes on it)");
}

/// The groups of a checkpointed run: those done before are restored from the file, the others run one by
/// one, each saved when the interval has passed; a stop request saves and throws resume::Interrupted.
void run_checkpointed(PreparedIntegral& prepared, resume::Checkpoint& checkpoint, const std::string& variant) {
    const int groups = prepared.checkpoint_groups();
    if (groups == 0)
        throw CudaError("--checkpoint: variant " + variant +
                        " cannot run its work in parts; the modern variants can (modern-f64, modern-f32)");
    resume::Progress p = resume::Progress::empty(static_cast<std::size_t>(groups), prepared.group_width());
    checkpoint.load(p);
    for (int g = 0; g < groups; ++g) {
        if (!p.done[g]) continue;
        prepared.restore_group(g, std::vector<double>(p.values.begin() + g * p.width, p.values.begin() + (g + 1) * p.width));
    }
    for (int g = 0; g < groups; ++g) {
        if (p.done[g]) continue;
        checkpoint.stop_if_requested(p);
        const auto numbers = prepared.run_group(g);
        std::copy(numbers.begin(), numbers.end(), p.values.begin() + g * p.width);
        resume::mark_done(p, g);
        checkpoint.save_if_due(p);
    }
}

}  // namespace

model::Integrals combine_areas(const std::vector<std::vector<double>>& area_sums, int S) {
    model::Integrals out;
    out.streams.assign(S, 0.0);
    for (std::size_t i = 0; i < area_sums.size(); ++i) {
        const double sign = i == 0 ? 1.0 : -1.0;
        out.background += sign * area_sums[i][0];
        for (int s = 0; s < S; ++s) out.streams[s] += sign * area_sums[i][1 + s];
    }
    return out;
}

model::Likelihood assemble_likelihood(const geometry::IntegrationSetup& setup, const StarResults& star,
                                      const model::Integrals& integrals) {
    const int S = static_cast<int>(setup.streams.size());
    const auto w = likelihood::mixture_weights(setup.model);
    likelihood::LikelihoodAssembly<likelihood::PlainSum> sums(w, integrals);
    for (std::size_t n = 0; n < star.log_probability.size(); ++n) {
        const double log_probability = star.log_probability[n];
        if (!std::isfinite(log_probability))
            throw CudaError("the likelihood kernel left star " + std::to_string(n) + " without a finite result");
        sums.add_star(log_probability, log_probability == constants::zero_probability_penalty,
                      star.densities.empty() ? nullptr : &star.densities[n * (1 + S)]);
    }
    return sums.result();
}

void initialise_devices(const std::string& variant, int device) {
    // One thread per device: the drivers' context start-ups overlap instead of adding up.
    const auto devices = devices_for(find_variant(variant), device, false);
    std::vector<std::future<void>> started;
    for (int d : devices)
        started.push_back(std::async(std::launch::async, [d] {
            check(cudaSetDevice(d), "select a device");
            check(cudaFree(nullptr), "create the device's context");
        }));
    for (auto& f : started) f.get();  // rethrows the first failure
}

std::vector<DevicePlanOf> evaluation_plans(const geometry::IntegrationSetup& setup, std::size_t stars,
                                           const VariantInfo& v, const std::vector<int>& devices,
                                           const LaunchOptions& launch) {
    std::vector<DevicePlanOf> plans;
    if (devices.empty()) return plans;
    // The slices as the modern family deals them: slice k to devices[k mod D]; the others use one.
    const int D = static_cast<int>(devices.size());
    const int slices = v.family->spreads_over_devices() ? (launch.slices > 0 ? launch.slices : D) : 1;
    const std::string purpose = "evaluating with " + v.name + " (" + std::to_string(setup.areas.size()) + " area" +
                                (setup.areas.size() == 1 ? "" : "s") + ", " + std::to_string(stars) + " stars)";
    for (int i = 0; i < D; ++i) {
        const int here = v.family->spreads_over_devices() ? slices / D + (i < slices % D ? 1 : 0) : (i == 0 ? 1 : 0);
        if (here == 0 && i > 0) continue;
        DevicePlanOf p{devices[i], harness::DevicePlan(purpose)};
        p.plan.phase("the integral runs");
        v.family->plan_device_memory(setup, setup.streams.size(), here, p.plan);
        if (i == 0) {
            p.plan.then("the likelihood runs");
            plan_star_memory(stars, v.kernels.double_precision, static_cast<int>(setup.streams.size()), p.plan);
        }
        plans.push_back(std::move(p));
    }
    return plans;
}

void require_evaluation_memory(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                               const VariantInfo& v, int device, const LaunchOptions& launch, bool checkpointed) {
    const auto [devices, l] = evaluation_devices(v, device, launch, checkpointed);
    require_plans(evaluation_plans(setup, stars.size(), v, devices, l));
}

GpuResult evaluate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const std::string& variant_name, int device, const LaunchOptions& launch_options, bool soa_stars,
                   resume::Checkpoint* checkpoint, HostWork* host) {
    return evaluate(setup, stars, find_variant(variant_name), device, launch_options, soa_stars, checkpoint, host);
}

HostWork prepare_on_host(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                         const std::string& variant, bool soa_stars) noexcept {
    HostWork w;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        const VariantInfo& v = find_variant(variant);
        w.integral = v.family->prepare_host(setup);
        w.stars = make_star_table(stars, v.kernels.double_precision, soa_stars);
    } catch (...) {
        w.integral.reset();
        w.stars.reset();
        w.failed = std::current_exception();
    }
    w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return w;
}

GpuResult evaluate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const VariantInfo& v, int device, const LaunchOptions& launch_options, bool soa_stars,
                   resume::Checkpoint* checkpoint, HostWork* host) {
    const std::string& variant_name = v.name;
    const auto& m = setup.model;
    const int S = static_cast<int>(setup.streams.size());
    if (S > max_streams)
        throw CudaError("the CUDA kernels support at most " + std::to_string(max_streams) + " streams; this work unit has " +
                        std::to_string(S));
    if (!setup.hernquist_fast_path || m.aux_profile)
        throw CudaError("the CUDA kernels implement the alpha = delta = 1 background without the auxiliary term, as "
                        "the thesis's kernels did; use the CPU backend for this work unit");
    if (launch_options.threads_per_block < 32 || launch_options.threads_per_block > 1024 || launch_options.threads_per_block % 32 != 0)
        throw CudaError("threads per block must be a multiple of 32 in [32, 1024]");
    if (launch_options.slices < 0) throw CudaError("the slice count must be 0 (one per device) or more");
    // A checkpointed run computes its groups one after another on one device, as one slice: the same
    // chunk sums, added in the same order, as any other slicing.
    auto chosen = evaluation_devices(v, device, launch_options, checkpoint != nullptr);
    std::vector<int> devices = std::move(chosen.first);
    const LaunchOptions launch = chosen.second;
    // Before anything is allocated: every device's share of the evaluation must fit its free memory.
    require_plans(evaluation_plans(setup, stars.size(), v, devices, launch));
    harness::use_device(devices.front());
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, devices.front()), "query the device");

    GpuResult r;
    // The device memory the evaluation takes: the first device's free memory before and while it is in use.
    const auto free_bytes = [&devices] {
        harness::use_device(devices.front());
        std::size_t free = 0, total = 0;
        check(cudaMemGetInfo(&free, &total), "query the device's free memory");
        return free;
    };
    const std::size_t free_before = free_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    {
        if (host && host->failed) std::rethrow_exception(host->failed);  // where the work would have failed
        const auto prepared = host ? v.family->prepare_with(setup, devices, launch, std::move(host->integral))
                                   : v.family->prepare(setup, devices, launch);
        const std::size_t free_prepared = free_bytes();
        r.integral_device_bytes = free_before > free_prepared ? free_before - free_prepared : 0;
        const auto t1 = std::chrono::steady_clock::now();
        r.prepare_seconds = std::chrono::duration<double>(t1 - t0).count();
        if (checkpoint) {
            run_checkpointed(*prepared, *checkpoint, variant_name);
            r.integral_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        } else {
            prepared->launch();
            r.integral_seconds = prepared->wait() / 1000.0;
        }
        r.integrals = combine_areas(prepared->area_sums(), S);
        r.controller = prepared->controller_report();
    }
    likelihood::check_integrals(r.integrals);

    // The likelihood on the first device (selected only if another is current: a green context stays);
    // the per-star results added on the host in star order.
    harness::use_device(devices.front());
    const Stream queue;
    const std::size_t free_before_stars = free_bytes();
    std::optional<ResidentStars> resident_stars;
    if (host && host->stars) {
        if (host->stars->double_precision != v.kernels.double_precision || host->stars->soa != soa_stars ||
            host->stars->count != static_cast<int>(stars.size()))
            throw std::logic_error("the star table was made for another variant, layout or catalogue");
        resident_stars.emplace(*host->stars, S);
    } else {
        resident_stars.emplace(stars, v.kernels.double_precision, soa_stars, S);
    }
    const ResidentStars& resident = *resident_stars;
    const std::size_t free_stars = free_bytes();
    r.star_device_bytes = free_before_stars > free_stars ? free_before_stars - free_stars : 0;
    const StarResults star = run_likelihood_kernel(setup, resident, r.integrals, queue.get());
    r.likelihood = assemble_likelihood(setup, star, r.integrals);
    r.likelihood_seconds = star.kernel_ms / 1000.0;
    r.device = prop.name;
    // Fewer slices than devices leave the rest idle.
    const int n_devices = static_cast<int>(devices.size());
    r.devices_used = v.family->spreads_over_devices() && launch.slices > 0 ? std::min(n_devices, launch.slices) : n_devices;
    if (r.devices_used > 1) r.device = std::to_string(r.devices_used) + " x " + r.device;
    return r;
}

}  // namespace mwsep::cuda
