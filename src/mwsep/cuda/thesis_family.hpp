/// @file thesis_family.hpp
/// @brief The thesis's kernel family: one device, one launch per r step and area, per-cell accumulators
/// reduced on the host in cell order (spec 3.4).
#pragma once

#include "mwsep/cuda/kernel_family.hpp"
#include "mwsep/thesis_kernels.hpp"

namespace mwsep::cuda {

/// Runs one variant of the thesis's family.
class ThesisFamily : public KernelFamily {
public:
    /// The family's driver for @p variant.
    explicit ThesisFamily(const ThesisVariant& variant) : variant_(variant) {}
    bool has_capped_build() const override { return true; }       ///< every thesis variant has a 48-register build
    bool spreads_over_devices() const override { return false; }  ///< one device, as in the thesis
    /// Uploads the stream table, the per-area tables and zeroed accumulators to the first of @p devices.
    std::unique_ptr<PreparedIntegral> prepare(const geometry::IntegrationSetup& setup, const std::vector<int>& devices,
                                              const LaunchOptions& options) const override;
    /// What prepare() allocates on one device (KernelFamily::plan_device_memory()).
    void plan_device_memory(const geometry::IntegrationSetup& setup, std::size_t streams, int slices,
                            harness::DevicePlan& plan) const override;

private:
    ThesisVariant variant_;
};

}  // namespace mwsep::cuda
