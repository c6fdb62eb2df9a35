#include "mwsep/fit/resident_device.hpp"

#include <chrono>
#include <limits>
#include <stdexcept>
#include <utility>

#include "harness/fault_injection.hpp"
#include "mwsep/cpu/worker_pool.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/fit/candidate_setup.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/tidal_streams.hpp"

namespace mwsep::fit {

ResidentDevice::ResidentDevice(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                               const std::string& variant, int device, unsigned host_threads, DeviceWork work)
    : device_(device), host_threads_(host_threads), pool_(std::make_unique<cpu::WorkerPool>(host_threads)),
      variant_(cuda::find_variant(variant)), setup_(setup), work_(work) {
    const int S = static_cast<int>(setup_.streams.size());
    if (S > cuda::max_streams)
        throw cuda::CudaError("the CUDA kernels support at most " + std::to_string(cuda::max_streams) +
                              " streams; this work unit has " + std::to_string(S));
    if (!setup_.hernquist_fast_path || setup_.model.aux_profile)
        throw cuda::CudaError("the CUDA kernels implement the alpha = delta = 1 background without the auxiliary "
                              "term; fit this work unit on the CPU (--backend cpu)");
    harness::use_device(device_, "select a fit device");
    cudaDeviceProp prop{};
    cuda::check(cudaGetDeviceProperties(&prop, device_), "query the device");
    device_name_ = prop.name;
    // The same launch options and single slice as cuda::evaluate() on one named device.
    integral_ = variant_.family->prepare(setup_, {device_}, cuda::LaunchOptions{});
    for (const auto& area : setup_.areas) los_.push_back(geometry::fold_line_of_sight(area));
    own_thresholds_ = integral_->retarget_with(setup_, thresholds_of(setup_.model));
    if (!own_thresholds_ && !integral_->retarget(setup_))
        throw std::invalid_argument("kernel variant " + variant + " cannot keep its tables between evaluations; "
                                    "fit with a modern variant (modern-f64)");
    if (work_.thresholds) work_.thresholds = integral_->retarget_on_device(setup_);
    stars_ = std::make_unique<cuda::ResidentStars>(stars, variant_.kernels.double_precision, true, S);
    queue_ = std::make_unique<cuda::Stream>();
    // The device star sum reads the stars' convolution points from a table made once: no fit parameter moves them.
    if (work_.tabulates()) cuda::tabulate_convolution(setup_, *stars_, queue_->get());
}

ResidentDevice::~ResidentDevice() { harness::use_device_quietly(device_); }

harness::DevicePlan ResidentDevice::plan(const geometry::IntegrationSetup& setup, std::size_t stars,
                                         const std::string& variant, bool partial_integrals, bool convolution_table) {
    const cuda::VariantInfo& v = cuda::find_variant(variant);
    const std::size_t S = setup.streams.size();
    harness::DevicePlan p("fitting with " + variant + " (the tables and buffers of the integral and of " +
                          std::to_string(stars) + " stars, resident on the device for the whole fit)");
    v.family->plan_device_memory(setup, S, 1, p);
    // The partial integrals of the cache (part()): each with the same geometry and fewer streams.
    for (std::size_t k = 1; partial_integrals && k < S; ++k) {
        harness::DevicePlan part;
        v.family->plan_device_memory(setup, k, 1, part);
        p.include(part, 1, "the " + std::to_string(k) + "-stream integral's ");
    }
    cuda::plan_star_memory(stars, v.kernels.double_precision, static_cast<int>(S), p);
    if (convolution_table) cuda::plan_convolution_table(stars, setup.model.convolve, v.kernels.double_precision, p);
    return p;
}

std::vector<std::vector<double>> ResidentDevice::thresholds_of(const model::Model& model) {
    const auto keys = component_keys(model).streams;
    std::vector<std::vector<double>> out(setup_.areas.size(), std::vector<double>(keys.size()));
    std::vector<std::size_t> missing;
    {
        const std::lock_guard lock(thresholds_mutex_);
        for (std::size_t s = 0; s < keys.size(); ++s) {
            const auto found = thresholds_.find(keys[s]);
            if (found == thresholds_.end()) missing.push_back(s);
            else
                for (std::size_t i = 0; i < out.size(); ++i) out[i][s] = found->second[i];
        }
    }
    if (missing.empty()) return out;
    std::vector<geometry::StreamGeometry> streams;
    for (const std::size_t s : missing) streams.push_back(geometry::make_stream_geometry(model.streams[s], model.wedge));
    std::vector<std::vector<double>> per_area;
    for (std::size_t i = 0; i < setup_.areas.size(); ++i)
        per_area.push_back(likelihood::stream_skip_thresholds(streams, setup_.areas[i], los_[i], *pool_));
    const std::lock_guard lock(thresholds_mutex_);
    if (thresholds_.size() > (1u << 16)) thresholds_.clear();  // a global search's streams never repeat
    for (std::size_t k = 0; k < missing.size(); ++k) {
        std::vector<double> one;
        for (std::size_t i = 0; i < out.size(); ++i) one.push_back(out[i][missing[k]] = per_area[i][k]);
        thresholds_.emplace(keys[missing[k]], std::move(one));
    }
    return out;
}

void ResidentDevice::prefetch(const model::Model& model) {
    if (prefetches()) thresholds_of(model);
}

void ResidentDevice::retarget(cuda::PreparedIntegral& integral, const geometry::IntegrationSetup& s) {
    if (work_.thresholds && integral.retarget_on_device(s)) return;
    const bool done = own_thresholds_ ? integral.retarget_with(s, thresholds_of(s.model)) : integral.retarget(s, host_threads_);
    if (!done) throw cuda::CudaError("the prepared integral refused a candidate");
}

ResidentDevice::Part& ResidentDevice::part(const model::Model& model) {
    const std::size_t k = model.streams.size();
    if (k == 0 || k >= setup_.streams.size()) throw std::logic_error("a partial integral holds 1 to S - 1 streams");
    if (parts_.size() < k) parts_.resize(k);
    if (!parts_[k - 1]) {
        auto p = std::make_unique<Part>();
        p->setup = setup_;
        set_parameters(p->setup, model);
        p->integral = variant_.family->prepare(p->setup, {device_}, cuda::LaunchOptions{});
        parts_[k - 1] = std::move(p);
    }
    return *parts_[k - 1];
}

cuda::GpuResult ResidentDevice::evaluate(const model::Model& model, IntegralCache* cache,
                                         const std::function<void()>& while_integrating) {
    harness::use_device(device_, "select a fit device");
    // The test hook (harness/fault_injection.hpp): past its number of evaluations, this one fails as a kernel
    // launch that the device refused would, through the same check.
    if (auto& faults = harness::evaluation_faults(); faults.fail_next())
        cuda::check(cudaErrorLaunchFailure, ("launch the integral kernels (a failure injected by the test hook " +
                                             faults.setting() + ")").c_str());
    cuda::GpuResult r;
    auto t = std::chrono::steady_clock::now();
    // Adds the wall time since the last stamp to @p step and returns it.
    const auto stamp = [&t](double& step) {
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - t).count();
        step += seconds;
        t = now;
        return seconds;
    };
    set_parameters(setup_, model);
    if (!setup_.hernquist_fast_path || setup_.model.aux_profile)
        throw cuda::CudaError("a candidate leaves the alpha = delta = 1 background the CUDA kernels implement");
    // With the device star sum, the stars' densities (which need no integral) are queued on the stars' own queue
    // right after the first integral's kernels, so that the two run side by side; the mixture waits for the sums.
    bool densities_queued = false;
    const auto queue_densities = [&] {
        if (!work_.star_sum || densities_queued) return;
        cuda::queue_star_densities(setup_, *stars_, queue_->get());
        densities_queued = true;
    };
    // The caller's host work, once, while the device is busy (after the first launch), never while this
    // candidate is prepared: on a host whose cores it fills, it would slow the preparation down.
    bool host_work_done = !while_integrating;
    const auto host_work = [&] {
        if (host_work_done) return;
        host_work_done = true;
        while_integrating();
    };
    // One launch: the constants and skip thresholds of @p s, the kernels, and the sums brought back.
    const auto run = [&](cuda::PreparedIntegral& integral, const geometry::IntegrationSetup& s) {
        retarget(integral, s);
        r.prepare_seconds += stamp(steps_.prepare);
        integral.launch();
        queue_densities();
        host_work();
        r.integral_seconds += integral.wait() / 1000.0;
        stamp(steps_.integral);
        model::Integrals sums = cuda::combine_areas(integral.area_sums(), static_cast<int>(s.streams.size()));
        stamp(steps_.sums);
        return sums;
    };
    // The candidate itself, or (from the cache) the candidate with only the streams it lacks.
    const auto integrate = [&](const model::Model& m) {
        if (m.streams.size() == setup_.streams.size()) {
            if (&m != &setup_.model) set_parameters(setup_, m);
            return run(*integral_, setup_);
        }
        Part& p = part(m);
        set_parameters(p.setup, m);
        return run(*p.integral, p.setup);
    };
    r.integrals = cache ? cache->integrals(setup_.model, integrate) : integrate(setup_.model);
    likelihood::check_integrals(r.integrals);
    stamp(steps_.sums);
    // Where every integral came from the cache nothing has queued the densities or run the host work yet: the
    // work runs beside the densities.
    queue_densities();
    if (!host_work_done) {
        host_work();
        stamp(steps_.integral);
    }
    // The fit needs the likelihood alone: the diagnostic likelihoods (a logarithm per star and component on the
    // host) are not formed. Either only the total comes back (the device sum) or the log-probabilities do.
    if (work_.star_sum) {
        const cuda::StarSum sum = cuda::finish_likelihood_sum(setup_, *stars_, r.integrals, queue_->get());
        stamp(steps_.likelihood);
        r.likelihood.likelihood = sum.likelihood;
        r.likelihood.zero_probability_stars = sum.zero_stars;
        r.likelihood.background_likelihood = std::numeric_limits<double>::quiet_NaN();
        r.likelihood_seconds = sum.kernel_ms / 1000.0;
    } else {
        const cuda::StarResults star =
            cuda::run_likelihood_kernel(setup_, *stars_, r.integrals, queue_->get(), /*densities=*/false);
        stamp(steps_.likelihood);
        r.likelihood = cuda::assemble_likelihood(setup_, star, r.integrals);
        stamp(steps_.assemble);
        r.likelihood_seconds = star.kernel_ms / 1000.0;
    }
    r.device = device_name_;
    return r;
}

}  // namespace mwsep::fit
