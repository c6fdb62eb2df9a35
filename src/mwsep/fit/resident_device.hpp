/// @file resident_device.hpp
/// @brief One GPU's state for a whole fit: its tables, integral buffers and star catalogue uploaded once;
/// per candidate only the stream constants and skip thresholds change before the integral kernels and the
/// likelihood kernel run. The integrals are bit-identical to cuda::evaluate() for the same setup on one device,
/// and so is the likelihood where the stars are added on the host (the default; the fit adds them on the device,
/// see the constructor); the diagnostic likelihoods are not formed (a fit does not use them).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/device_budget.hpp"
#include "mwsep/cpu/worker_pool.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/kernel_family.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/fit/integral_cache.hpp"
#include "mwsep/likelihood_kernel.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::fit {

/// Per-candidate work a ResidentDevice may leave to its device instead of its host. Either of star_sum and
/// thresholds makes the likelihood differ from cuda::evaluate()'s bits by about a rounding (see the constructor);
/// neither is the default.
struct DeviceWork {
    /// Add the stars' log-probabilities on the device (cuda::run_likelihood_sum()) instead of on the host.
    bool star_sum = false;
    /// Compute the skip thresholds on the device (PreparedIntegral::retarget_on_device()) where the family can.
    bool thresholds = false;
    /// With star_sum: keep the stars' convolution points in a device table made at construction
    /// (cuda::tabulate_convolution(), the same bits) instead of computing them for every candidate.
    bool convolution_table = true;
    /// Whether the device keeps the convolution table (the device star sum reads it; the host's sum does not).
    bool tabulates() const { return star_sum && convolution_table; }
};

/// A device with the work unit's tables and the catalogue resident. Use it from one host thread at a time.
class ResidentDevice {
public:
    /// Uploads the tables of @p setup and the stars @p stars to @p device for kernel variant @p variant
    /// (one whose family can retarget a prepared integral, e.g. modern-f64). Throws CudaError where the
    /// CUDA kernels cannot evaluate the work unit, std::invalid_argument for a variant that cannot retarget.
    /// Each candidate's skip thresholds are computed by @p host_threads CPU threads (the same values for any number).
    /// With @p work.star_sum the stars' log-probabilities are added on the device (cuda::run_likelihood_sum(),
    /// compensated, in a fixed order; only the total comes back) instead of downloaded and added on the host in
    /// star order: the likelihood then lies within about one rounding of the exact sum of the same per-star values,
    /// not on the bits of cuda::evaluate(). With @p work.thresholds a family that can (the compressed one) computes
    /// each candidate's skip thresholds on the device: the same definition with the device's arithmetic, so the
    /// integrals may differ from the host thresholds' in what one skipped term can change (below 2^-60 of them).
    ResidentDevice(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const std::string& variant, int device, unsigned host_threads = 1, DeviceWork work = {});
    ~ResidentDevice();

    /// What a ResidentDevice of @p setup, @p stars stars and kernel variant @p variant allocates on its device
    /// over a whole fit: the integral's tables and buffers, with @p partial_integrals also one integral per
    /// stream count from 1 to S - 1 (the integral cache's partial launches, prepared on first use), the
    /// star table with the per-star results and, with @p convolution_table, the stars' convolution table (a
    /// device star sum's, DeviceWork). Computed from the sizes alone, before any allocation.
    static harness::DevicePlan plan(const geometry::IntegrationSetup& setup, std::size_t stars, const std::string& variant,
                                    bool partial_integrals, bool convolution_table);
    ResidentDevice(const ResidentDevice&) = delete;             ///< owns device memory
    ResidentDevice& operator=(const ResidentDevice&) = delete;  ///< owns device memory

    /// Evaluates @p model (same geometry as the setup given at construction): its integrals and
    /// likelihood; integral_seconds and likelihood_seconds from CUDA events, prepare_seconds the host
    /// time spent on the stream constants and skip thresholds. With @p cache, the components it holds are
    /// taken from it and the others integrated in one launch of the missing streams alone (a prepared
    /// integral per stream count, made on first use): the same bits. Throws as cuda::evaluate() does.
    /// @p while_integrating, if given, is host work run once while the device computes: right after the first
    /// integral's kernels are queued, or, where every integral came from @p cache, before the likelihood. Its time
    /// counts in the evaluation's wall time, not in its preparation, and it must not throw.
    cuda::GpuResult evaluate(const model::Model& model, IntegralCache* cache = nullptr,
                             const std::function<void()>& while_integrating = {});

    /// Computes and keeps the skip thresholds of @p model's streams that no earlier candidate had (by the exact
    /// bits of their parameters; a stream's thresholds depend on it alone), so that evaluate() of this model
    /// spends no time on them. Safe to call from another host thread while evaluate() runs; the GPU evaluator
    /// calls it for a device's next candidate from evaluate()'s @p while_integrating, once the current one's
    /// kernels are queued. A family that computes its own thresholds (the compressed one) makes this a no-op.
    void prefetch(const model::Model& model);
    /// Whether prefetch() does anything: the host computes this device's skip thresholds (not the family itself,
    /// nor the device). The GPU evaluator builds no model ahead for a device that does not.
    bool prefetches() const { return own_thresholds_ && !work_.thresholds; }

    int device() const { return device_; }  ///< the CUDA device
    /// What this device does of each candidate's work: as asked, the thresholds only where the family can.
    const DeviceWork& device_work() const { return work_; }
    /// The skip thresholds of the last evaluation's full integral, per area then stream (downloaded where the device
    /// computed them); empty where the family does not say.
    std::vector<std::vector<double>> thresholds_in_use() const { return integral_->thresholds_in_use(); }

    /// Host wall time of every evaluation so far, per step: the candidate's stream constants and skip
    /// thresholds, the integral (launch and wait), its sums brought to the host, the likelihood (upload of
    /// the weights, kernel, download of the per-star results) and its assembly on the host.
    struct Steps {
        double prepare = 0;     ///< stream constants and skip thresholds
        double integral = 0;    ///< the integral's launch and wait
        double sums = 0;        ///< the integral's sums brought to the host and checked
        double likelihood = 0;  ///< the likelihood kernel with its uploads and the per-star download (or the
                                ///< device sum's kernels and the total's download)
        double assemble = 0;    ///< the likelihood's sum on the host (0 with the device sum)
    };
    const Steps& steps() const { return steps_; }  ///< the totals so far

private:
    /// An integral prepared for fewer streams than the work unit has: the cache's partial launches.
    struct Part {
        geometry::IntegrationSetup setup;                   ///< the tables, with the last partial model
        std::unique_ptr<cuda::PreparedIntegral> integral;   ///< its device state
    };
    /// The Part for @p streams streams (1 to the unit's count - 1), prepared on first use from @p model.
    Part& part(const model::Model& model);
    /// The skip thresholds of @p model's streams, per area then stream: the kept ones, the others computed
    /// (by the @p host_threads_ threads of pool_) and kept.
    std::vector<std::vector<double>> thresholds_of(const model::Model& model);
    /// Puts @p s's parameters and skip thresholds into @p integral.
    void retarget(cuda::PreparedIntegral& integral, const geometry::IntegrationSetup& s);

    int device_;
    unsigned host_threads_;
    // The threads of every candidate's skip-threshold search, started once for the fit (thresholds_of()).
    std::unique_ptr<cpu::WorkerPool> pool_;
    const cuda::VariantInfo& variant_;
    std::string device_name_;
    geometry::IntegrationSetup setup_;  // the tables, with the parameters of the last candidate
    std::unique_ptr<cuda::PreparedIntegral> integral_;
    std::unique_ptr<cuda::ResidentStars> stars_;
    std::unique_ptr<cuda::Stream> queue_;
    std::vector<std::unique_ptr<Part>> parts_;  // [k - 1]: the Part of k streams, once used
    std::vector<geometry::FoldedLineOfSight> los_;  // per area: the line of sight the thresholds are computed on
    DeviceWork work_;  // what the device does; work_.thresholds only where the family could
    bool own_thresholds_ = true;  // false: the family computes its own (retarget_with() refused)
    std::mutex thresholds_mutex_;
    std::map<ComponentKey, std::vector<double>> thresholds_;  // a stream's thresholds in every area, by its key
    Steps steps_;
};

}  // namespace mwsep::fit
