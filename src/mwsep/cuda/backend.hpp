/// @file backend.hpp
/// @brief The CUDA backend: one evaluation through the variant's kernel family (integrals), then the
/// likelihood kernel and the likelihood's assembly on the host (spec 3.4 and 5).
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/device_budget.hpp"
#include "mwsep/cpu/compressed.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/result.hpp"
#include "mwsep/resume/checkpoint.hpp"
#include "mwsep/model/work_unit.hpp"
#include "mwsep/cuda/devices.hpp"
#include "mwsep/cuda/kernel_family.hpp"
#include "mwsep/cuda/star_table.hpp"
#include "mwsep/kernel_set.hpp"
#include "mwsep/likelihood_kernel.hpp"

namespace mwsep::cuda {

struct VariantInfo;  // variants.hpp

/// The outcome of one GPU evaluation.
struct GpuResult {
    model::Integrals integrals;     ///< cell sums added in double on the host, cuts subtracted (spec 3.4)
    model::Likelihood likelihood;   ///< per-star kernel results summed on the host in star order
    double integral_seconds = 0;    ///< integral kernels, CUDA events
    double likelihood_seconds = 0;  ///< likelihood kernel, CUDA events
    /// Host tables (unless HostWork brought them), allocations and uploads before the integral kernels (wall clock).
    double prepare_seconds = 0;
    std::string device;             ///< name of the GPU that ran the kernels ("N x name" for several)
    int devices_used = 1;           ///< GPUs the integral was spread over (modern variants)
    std::optional<cpu::CompressedReport> controller;  ///< the error controller's account (compressed variants)
    /// Bytes the integral's buffers and tables took on the first device: the drop of its free memory
    /// (cudaMemGetInfo) from before they were prepared to after, allocation rounding included.
    std::size_t integral_device_bytes = 0;
    /// Bytes the star catalogue and the per-star outputs took on the first device, measured the same way
    /// (they are allocated after the integral's buffers are freed).
    std::size_t star_device_bytes = 0;
};

/// The background and stream integrals of all areas (cut areas subtracted, spec 3.4) from per-area sums
/// (background, then each of the @p S streams), added in area order.
model::Integrals combine_areas(const std::vector<std::vector<double>>& area_sums, int S);

/// The likelihood of @p setup from the likelihood kernel's per-star results @p star, added on the host in
/// star order; without densities (run_likelihood_kernel(..., false)) the likelihood alone, bit-identical, and
/// no diagnostic likelihoods (a fit needs no more, and their logarithms are most of the host's time per
/// candidate). Throws CudaError for a star without a finite result.
model::Likelihood assemble_likelihood(const geometry::IntegrationSetup& setup, const StarResults& star,
                                      const model::Integrals& integrals);

/// Creates the CUDA context of every device that evaluate() would use for @p variant and @p device, so
/// that a caller can overlap the driver's start-up with reading the inputs (mwsep run does).
void initialise_devices(const std::string& variant, int device);

/// What evaluate() computes on the host before it needs a device: the kernel family's host tables and the
/// likelihood kernel's star table. prepare_on_host() makes them on the calling thread while the devices
/// start (mwsep run); evaluate() then uploads them instead of computing them: the same values, bit for bit.
struct HostWork {
    std::unique_ptr<HostPreparation> integral;  ///< the family's host tables (nullptr: the family has none)
    std::optional<StarTable> stars;             ///< the star table (empty where making it failed)
    /// What went wrong making them (nullptr: nothing). evaluate() rethrows it where it would have computed
    /// them, so that the error and its place are those of a run without HostWork.
    std::exception_ptr failed;
    double seconds = 0;  ///< wall clock of prepare_on_host()
};

/// The host work of evaluate() for @p setup and @p stars with the variant called @p variant and the star
/// layout @p soa_stars; no CUDA call. Never throws: a failure is kept in HostWork::failed.
HostWork prepare_on_host(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                         const std::string& variant, bool soa_stars = true) noexcept;

/// What evaluate() allocates on one device.
struct DevicePlanOf {
    int device = 0;           ///< the CUDA device
    harness::DevicePlan plan; ///< its allocations
};

/// The device memory evaluate() allocates for @p setup and @p stars stars with @p variant over @p devices
/// (the devices it uses, in its order) and @p launch (its slices): per device, the integral's tables and
/// buffers for every slice on that device; on the first device, then, the star table and the per-star
/// results (allocated after the integral's buffers are freed). Computed from the sizes alone.
std::vector<DevicePlanOf> evaluation_plans(const geometry::IntegrationSetup& setup, std::size_t stars,
                                           const VariantInfo& variant, const std::vector<int>& devices,
                                           const LaunchOptions& launch = {});

/// Refuses, with harness::DeviceMemoryShortage naming the numbers, an evaluation whose evaluation_plans()
/// do not fit the devices evaluate() would use with these arguments (@p checkpointed: a checkpointed run,
/// on one device). evaluate() calls it before it allocates; a command calls it before its long work.
void require_evaluation_memory(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                               const VariantInfo& variant, int device, const LaunchOptions& launch = {},
                               bool checkpointed = false);

/// Evaluates the likelihood with kernel variant @p variant on device @p device. With -1 the thesis's
/// variants run on the device select_device() picks, and the modern variants on every device with
/// double precision, each area's mu range split between them (LaunchOptions::slices).
/// With @p checkpoint (modern variants) the integral runs in groups on one device, resumed from and saved
/// to the checkpoint, bit-identical to an uninterrupted run; a stop request throws resume::Interrupted.
/// With @p host (from prepare_on_host() for the same setup, stars, variant and layout) its tables are used
/// and moved from. Before any allocation, the device memory it needs is checked (require_evaluation_memory()).
GpuResult evaluate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const VariantInfo& variant, int device, const LaunchOptions& launch = {}, bool soa_stars = true,
                   resume::Checkpoint* checkpoint = nullptr, HostWork* host = nullptr);

/// The same for the variant called @p variant (find_variant; harness::UnknownName for an unknown name).
GpuResult evaluate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const std::string& variant, int device, const LaunchOptions& launch = {}, bool soa_stars = true,
                   resume::Checkpoint* checkpoint = nullptr, HostWork* host = nullptr);

}  // namespace mwsep::cuda
