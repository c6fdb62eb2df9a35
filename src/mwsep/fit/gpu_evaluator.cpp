// The GPU evaluator: one host thread per device, each taking the batch's next candidate until none is
// left. Every candidate runs the same kernel with the same launch configuration on one device, and its
// sums are added in a fixed order, so its value does not depend on which device took it.
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/devices.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/fit/evaluator.hpp"
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

class GpuEvaluator : public BatchEvaluator {
public:
    GpuEvaluator(const FitData& data, std::string variant, std::vector<int> devices)
        : data_(data), variant_(std::move(variant)), devices_(std::move(devices)) {
        const auto& v = cuda::find_variant(variant_);
        if (devices_.empty()) devices_ = cuda::ranked_devices(v.kernels.double_precision);
        for (int& d : devices_) d = cuda::select_device(d, v.kernels.double_precision);
        // Each device's context is created once, here, not inside the first batch's timing.
        std::vector<std::thread> start;
        for (int d : devices_)
            start.emplace_back([d] { harness::use_device_quietly(d), (void)cudaFree(nullptr); });
        for (auto& t : start) t.join();
        cudaDeviceProp prop{};
        cuda::check(cudaGetDeviceProperties(&prop, devices_.front()), "query the device");
        name_ = std::to_string(devices_.size()) + " x " + prop.name + " (" + variant_ + ")";
    }

    std::vector<double> evaluate(const Batch& batch) override {
        std::vector<double> out(batch.size(), std::numeric_limits<double>::quiet_NaN());
        std::atomic<std::size_t> next{0};
        std::exception_ptr fault;
        std::mutex fault_mutex;
        const auto work = [&](int device) {
            try {
                harness::use_device(device, "select a fit worker's device");
                for (std::size_t i; (i = next.fetch_add(1)) < batch.size();) out[i] = one(batch[i], device);
            } catch (...) {
                const std::lock_guard lock(fault_mutex);
                if (!fault) fault = std::current_exception();
                next.store(batch.size());
            }
        };
        std::vector<std::thread> workers;
        for (std::size_t k = 1; k < devices_.size() && k < batch.size(); ++k) workers.emplace_back(work, devices_[k]);
        work(devices_.front());
        for (auto& t : workers) t.join();
        if (fault) std::rethrow_exception(fault);
        return out;
    }

    std::string description() const override { return name_; }

private:
    /// One candidate on @p device; NaN when it has no finite likelihood, an exception on a CUDA fault.
    double one(const std::vector<double>& x, int device) const {
        geometry::IntegrationSetup setup;
        try {
            setup = geometry::make_setup(model::build_model(with_parameters(data_.work_unit, x), data_.r_binning));
        } catch (const std::exception&) {
            return std::numeric_limits<double>::quiet_NaN();  // the model rejects the candidate
        }
        try {
            const double l = cuda::evaluate(setup, data_.stars, variant_, device).likelihood.likelihood;
            return std::isfinite(l) ? l : std::numeric_limits<double>::quiet_NaN();
        } catch (const std::exception& e) {
            if (is_cuda_fault(e)) throw;
            return std::numeric_limits<double>::quiet_NaN();  // integrals not positive, a non-finite star
        }
    }

    const FitData& data_;
    std::string variant_;
    std::vector<int> devices_;
    std::string name_;
};

}  // namespace

bool have_gpu_evaluator() { return true; }

std::unique_ptr<BatchEvaluator> make_gpu_evaluator(const FitData& data, const std::string& variant,
                                                   const std::vector<int>& devices) {
    return std::make_unique<GpuEvaluator>(data, variant, devices);
}

}  // namespace mwsep::fit
