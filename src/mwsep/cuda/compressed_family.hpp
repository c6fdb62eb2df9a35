/// @file compressed_family.hpp
/// @brief The compressed variant family (compressed-f64): Gauss rules of each area's line-of-sight measure
/// with an error controller and exact fallbacks, on one device. A different algorithm from the exact sum of
/// the thesis's and the modern families, with a measured and controlled error (cpu/compressed_cell.hpp).
#pragma once

#include "mwsep/compressed_kernels.hpp"
#include "mwsep/cuda/kernel_family.hpp"

namespace mwsep::cuda {

/// Runs one variant of the compressed family.
class CompressedFamily : public KernelFamily {
public:
    /// The family's driver for @p variant.
    explicit CompressedFamily(const CompressedVariant& variant) : variant_(variant) {}
    bool has_capped_build() const override { return false; }      ///< no 48-register build
    bool spreads_over_devices() const override { return false; }  ///< one device: the work is small
    /// Builds (or takes from the cache) each area's ladder of rules on the host and uploads it with the
    /// cell directions, the line of sight (for the exact fallbacks) and the outputs to the first device.
    std::unique_ptr<PreparedIntegral> prepare(const geometry::IntegrationSetup& setup, const std::vector<int>& devices,
                                              const LaunchOptions& options) const override;
    /// Each area's line of sight, ladder of rules and skip thresholds, made on the host while the devices start
    /// (mwsep run), so that prepare_with() only uploads them.
    std::unique_ptr<HostPreparation> prepare_host(const geometry::IntegrationSetup& setup) const override;
    /// prepare() with the host state of prepare_host() (nullptr: made here); the same device state either way.
    std::unique_ptr<PreparedIntegral> prepare_with(const geometry::IntegrationSetup& setup, const std::vector<int>& devices,
                                                   const LaunchOptions& options,
                                                   std::unique_ptr<HostPreparation> host) const override;
    /// What prepare() allocates on one device (KernelFamily::plan_device_memory()).
    void plan_device_memory(const geometry::IntegrationSetup& setup, std::size_t streams, int slices,
                            harness::DevicePlan& plan) const override;

private:
    CompressedVariant variant_;
};

}  // namespace mwsep::cuda
