/// @file resident_device.hpp
/// @brief One GPU's state for a whole fit: its tables, integral buffers and star catalogue uploaded once;
/// per candidate only the stream constants and skip thresholds change before the integral kernels and the
/// likelihood kernel run. Values are bit-identical to cuda::evaluate() for the same setup on one device.
#pragma once

#include <memory>
#include <string>

#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/kernel_family.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/likelihood_kernel.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::fit {

/// A device with the work unit's tables and the catalogue resident. Use it from one host thread at a time.
class ResidentDevice {
public:
    /// Uploads the tables of @p setup and the stars @p stars to @p device for kernel variant @p variant
    /// (one whose family can retarget a prepared integral, e.g. modern-f64). Throws CudaError where the
    /// CUDA kernels cannot evaluate the work unit, std::invalid_argument for a variant that cannot retarget.
    /// Each candidate's skip thresholds are computed by @p host_threads CPU threads (the same values for any number).
    ResidentDevice(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const std::string& variant, int device, unsigned host_threads = 1);
    ~ResidentDevice();
    ResidentDevice(const ResidentDevice&) = delete;             ///< owns device memory
    ResidentDevice& operator=(const ResidentDevice&) = delete;  ///< owns device memory

    /// Evaluates @p model (same geometry as the setup given at construction): its integrals and
    /// likelihood; integral_seconds and likelihood_seconds from CUDA events, prepare_seconds the host
    /// time spent on the stream constants and skip thresholds. Throws as cuda::evaluate() does.
    cuda::GpuResult evaluate(const model::Model& model);

    int device() const { return device_; }  ///< the CUDA device

private:
    int device_;
    unsigned host_threads_;
    const cuda::VariantInfo& variant_;
    std::string device_name_;
    geometry::IntegrationSetup setup_;  // the tables, with the parameters of the last candidate
    std::unique_ptr<cuda::PreparedIntegral> integral_;
    std::unique_ptr<cuda::ResidentStars> stars_;
    std::unique_ptr<cuda::Stream> queue_;
};

}  // namespace mwsep::fit
