/// @file modern_family.hpp
/// @brief The modern kernel family: one launch per area, fixed chunks of cells reduced on the device, and
/// the chunks of each area dealt in slices to every device in use.
#pragma once

#include "mwsep/cuda/kernel_family.hpp"
#include "mwsep/modern_kernels.hpp"

namespace mwsep::cuda {

/// Runs one variant of the modern family.
class ModernFamily : public KernelFamily {
public:
    /// The family's driver for @p variant.
    explicit ModernFamily(const ModernVariant& variant) : variant_(variant) {}
    bool has_capped_build() const override { return false; }     ///< no 48-register build: beyond the thesis
    bool spreads_over_devices() const override { return true; }  ///< every device with double precision
    /// Splits each area's reduction chunks into LaunchOptions::slices slices (default one per device),
    /// dealt round-robin to @p devices, and uploads each slice's tables to its device. Throws CudaError for
    /// more slices than reduction chunks.
    std::unique_ptr<PreparedIntegral> prepare(const geometry::IntegrationSetup& setup, const std::vector<int>& devices,
                                              const LaunchOptions& options) const override;
    /// What prepare() allocates on one device (KernelFamily::plan_device_memory()).
    void plan_device_memory(const geometry::IntegrationSetup& setup, std::size_t streams, int slices,
                            harness::DevicePlan& plan) const override;
    /// The folded line of sight and the skip thresholds of every area (on every core).
    std::unique_ptr<HostPreparation> prepare_host(const geometry::IntegrationSetup& setup) const override;
    /// prepare() with the tables of prepare_host() (nullptr: computed here).
    std::unique_ptr<PreparedIntegral> prepare_with(const geometry::IntegrationSetup& setup,
                                                   const std::vector<int>& devices, const LaunchOptions& options,
                                                   std::unique_ptr<HostPreparation> host) const override;

private:
    ModernVariant variant_;
};

}  // namespace mwsep::cuda
