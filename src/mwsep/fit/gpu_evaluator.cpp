// The GPU evaluator: one ResidentDevice per GPU (tables and stars uploaded once for the fit) and, per
// batch, one host thread per GPU taking the batch's next candidate until none is left. Every candidate
// runs the same kernels with the same launch configuration on one device, and its sums are added in a
// fixed order, so its value does not depend on which device took it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "harness/device_budget_cuda.hpp"
#include "harness/fault_injection.hpp"
#include "mwsep/cuda/devices.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/resident_device.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/model/build_model.hpp"

namespace mwsep::fit {
namespace {

/// Whether @p e reports a failed CUDA call (a device or driver fault, which must stop the fit) rather
/// than a candidate without a finite likelihood.
bool is_cuda_fault(const std::exception& e) {
    return dynamic_cast<const cuda::CudaError*>(&e) != nullptr &&
           std::string_view(e.what()).starts_with("CUDA error");
}

/// Runs @p work(k) for k = 0 .. n-1, k = 0 on the calling thread and the others on their own threads;
/// rethrows the first exception after all have finished.
template <class Work>
void on_each(std::size_t n, const Work& work) {
    std::exception_ptr fault;
    std::mutex fault_mutex;
    const auto guarded = [&](std::size_t k) {
        try {
            work(k);
        } catch (...) {
            const std::lock_guard lock(fault_mutex);
            if (!fault) fault = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t k = 1; k < n; ++k) threads.emplace_back(guarded, k);
    if (n > 0) guarded(0);
    for (auto& t : threads) t.join();
    if (fault) std::rethrow_exception(fault);
}

class GpuEvaluator : public BatchEvaluator {
public:
    GpuEvaluator(const FitData& data, std::string variant, std::vector<int> devices,
                 const std::vector<std::string>& later_variants)
        : data_(data), variant_(std::move(variant)) {
        (void)harness::evaluation_faults();  // a malformed test hook is refused before any work
        const auto& v = cuda::find_variant(variant_);
        if (devices.empty()) devices = cuda::ranked_devices(v.kernels.double_precision);
        for (int& d : devices) d = cuda::select_device(d, v.kernels.double_precision);
        // The tables depend on the work unit's geometry alone: built once here, from its own parameters.
        const auto base = geometry::make_setup(model::build_model(data_.work_unit, data_.r_binning));
        // What each device is asked to do of a candidate's work (it may do less: device_work()).
        const DeviceWork asked{data_.device_work, data_.device_work, data_.convolution_table};
        // What the fit keeps on each device, and what the evaluators made later beside this one will: checked
        // against each device's free memory before anything is allocated (a device named twice holds both).
        {
            const bool partial = data_.integral_cache && !data_.compressed;
            const bool table = asked.tabulates();
            harness::DevicePlan plan = ResidentDevice::plan(base, data_.stars.size(), variant_, partial, table);
            std::string purpose = plan.purpose();
            for (const auto& later : later_variants) purpose += ", then its optimum evaluated with " + later + " beside it";
            plan = harness::DevicePlan(purpose).include(plan);
            for (const auto& later : later_variants)
                plan.include(ResidentDevice::plan(base, data_.stars.size(), later, data_.integral_cache, table), 1,
                             "then for " + later + ": ");
            std::map<int, std::size_t> uses;
            for (int d : devices) ++uses[d];
            for (const auto& [d, n] : uses) {
                harness::DevicePlan here(plan.purpose());
                here.include(plan, n);
                harness::require_device_memory(here, d,
                                               "make the work unit's grid (mu, nu or r steps, convolve) or the star "
                                               "catalogue smaller, or free the device (other processes on it)");
            }
        }
        devices_.resize(devices.size());
        phases_.resize(devices.size());
        // The host's cores shared between this process's devices and, under mpirun, the ranks of this
        // host: each candidate's skip thresholds are computed by that many threads.
        unsigned local_ranks = 1;
        if (const char* size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) local_ranks = std::max(1, std::atoi(size));
        const unsigned host_threads =
            std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(devices.size() * local_ranks));
        // Each device's context, tables and stars are set up at once, not inside the first batch's timing.
        on_each(devices.size(), [&](std::size_t k) {
            harness::use_device(devices[k], "select a fit device");
            devices_[k] = std::make_unique<ResidentDevice>(base, data_.stars, variant_, devices[k], host_threads, asked);
        });
        cudaDeviceProp prop{};
        cuda::check(cudaGetDeviceProperties(&prop, devices.front()), "query the device");
        const DeviceWork& work = devices_.front()->device_work();
        name_ = std::to_string(devices.size()) + " x " + prop.name + " (" + variant_ + ", resident" +
                (work.star_sum ? ", stars added on the device" : "") +
                (work.thresholds ? ", skip thresholds on the device" : "") + ")";
        if (data_.integral_cache && !data_.compressed) cache_ = std::make_unique<IntegralCache>();
    }

    std::vector<double> evaluate(const Batch& batch) override {
        std::vector<double> out(batch.size(), std::numeric_limits<double>::quiet_NaN());
        std::atomic<std::size_t> next{0};
        on_each(std::min(devices_.size(), batch.size()), [&](std::size_t k) {
            try {
                // Once candidate i's kernels are queued, this thread computes (with the device's pool) the skip
                // thresholds of the device's next candidate j (ResidentDevice::prefetch) while they run, so that
                // j's preparation finds them; not where the device computes them itself. Not before: a search
                // filling the host's cores beside i's preparation would slow that down.
                const bool ahead = devices_[k]->prefetches();
                for (std::size_t i = next.fetch_add(1); i < batch.size();) {
                    const std::size_t j = next.fetch_add(1);
                    std::function<void()> while_integrating;
                    if (ahead && j < batch.size()) while_integrating = [&, j] { prefetch(batch[j], k); };
                    out[i] = one(batch[i], k, while_integrating);
                    i = j;
                }
            } catch (...) {
                next.store(batch.size());  // the other devices stop too
                throw;
            }
        });
        return out;
    }

    std::string description() const override { return name_; }

    std::optional<IntegralWork> integral_work() const override {
        if (!cache_) return std::nullopt;
        return cache_->work();
    }

    std::vector<std::pair<std::string, double>> phase_seconds() const override {
        Phases sum;
        ResidentDevice::Steps steps;
        for (std::size_t k = 0; k < phases_.size(); ++k) {
            const auto& p = phases_[k];
            sum.prepare += p.prepare, sum.integral += p.integral, sum.likelihood += p.likelihood;
            sum.evaluation += p.evaluation;
            const auto& s = devices_[k]->steps();
            steps.prepare += s.prepare, steps.integral += s.integral, steps.sums += s.sums;
            steps.likelihood += s.likelihood, steps.assemble += s.assemble;
        }
        return {{"prepare", sum.prepare},
                {"integral", sum.integral},
                {"likelihood", sum.likelihood},
                {"evaluation", sum.evaluation},
                {"device_wall_prepare", steps.prepare},
                {"device_wall_integral", steps.integral},
                {"device_wall_sums", steps.sums},
                {"device_wall_likelihood", steps.likelihood},
                {"device_wall_assemble", steps.assemble}};
    }

private:
    /// Seconds summed over one device's evaluations: host preparation (model, parameters, skip thresholds),
    /// the integral's kernels (events), the likelihood kernel (events) and the whole evaluation (wall).
    struct Phases {
        double prepare = 0, integral = 0, likelihood = 0, evaluation = 0;
    };

    /// The skip thresholds of candidate @p x's streams on device @p k, ahead of its evaluation. Throws nothing:
    /// a candidate the model rejects has none, and whatever fails here fails again in the candidate's own
    /// evaluation, which reports it (not the evaluation during which this runs).
    void prefetch(const std::vector<double>& x, std::size_t k) noexcept {
        try {
            devices_[k]->prefetch(model::build_model(with_parameters(data_.work_unit, x), data_.r_binning));
        } catch (...) {
        }
    }

    /// One candidate on device @p k; NaN when it has no finite likelihood, an exception on a CUDA fault.
    /// @p while_integrating: host work for the device's idle host time (ResidentDevice::evaluate).
    double one(const std::vector<double>& x, std::size_t k, const std::function<void()>& while_integrating) {
        ResidentDevice& device = *devices_[k];
        Phases& phases = phases_[k];
        const auto t0 = std::chrono::steady_clock::now();
        struct Stamp {  // the whole evaluation's wall time, on every way out
            std::chrono::steady_clock::time_point t0;
            double& into;
            ~Stamp() { into += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
        } stamp{t0, phases.evaluation};
        model::Model m;
        try {
            m = model::build_model(with_parameters(data_.work_unit, x), data_.r_binning);
        } catch (const std::exception&) {
            return std::numeric_limits<double>::quiet_NaN();  // the model rejects the candidate
        }
        try {
            const auto t_call = std::chrono::steady_clock::now();  // the model is built: the rest is the device's
            const cuda::GpuResult g = device.evaluate(m, cache_.get(), while_integrating);
            phases.prepare += g.prepare_seconds + std::chrono::duration<double>(t_call - t0).count();
            phases.integral += g.integral_seconds;
            phases.likelihood += g.likelihood_seconds;
            const double l = g.likelihood.likelihood;
            return std::isfinite(l) ? l : std::numeric_limits<double>::quiet_NaN();
        } catch (const IntegralCacheMismatch&) {
            throw;  // not the candidate's fault: the fit must stop
        } catch (const std::exception& e) {
            if (is_cuda_fault(e)) throw;
            return std::numeric_limits<double>::quiet_NaN();  // integrals not positive, a non-finite star
        }
    }

    const FitData& data_;
    std::string variant_;
    std::vector<std::unique_ptr<ResidentDevice>> devices_;
    std::vector<Phases> phases_;
    std::string name_;
    std::unique_ptr<IntegralCache> cache_;  // shared by the devices; none: every candidate integrated whole
};

}  // namespace

bool have_gpu_evaluator() { return true; }

std::unique_ptr<BatchEvaluator> make_gpu_evaluator(const FitData& data, const std::string& variant,
                                                   const std::vector<int>& devices,
                                                   const std::vector<std::string>& later_variants) {
    return std::make_unique<GpuEvaluator>(data, variant, devices, later_variants);
}

int device_for_local_rank(int local_rank, const std::string& variant) {
    const auto ranked = cuda::ranked_devices(cuda::find_variant(variant).kernels.double_precision);
    if (ranked.empty()) throw std::runtime_error("no CUDA device for this rank");
    return ranked[static_cast<std::size_t>(local_rank) % ranked.size()];
}

}  // namespace mwsep::fit
