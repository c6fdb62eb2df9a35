/// @file kernel_family.hpp
/// @brief One interface for the two kernel families (the thesis's and the modern one): each prepares its
/// own device state for an evaluation, launches its kernels inside a timed window, and reduces its results
/// to per-area sums. The backend drives every variant through it and never asks which family it has.
#pragma once

#include <memory>
#include <vector>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/kernel_set.hpp"

namespace mwsep::cuda {

/// The device state of one evaluation of the integrals, from upload to reduction.
class PreparedIntegral {
public:
    virtual ~PreparedIntegral() = default;
    /// Queues every integral kernel between a start and a stop event; whatever the kernels read is
    /// uploaded before the start event, so the window holds kernels only. No host synchronisation.
    virtual void launch() = 0;
    /// Waits for the kernels; the milliseconds between the events (the longest over the devices used).
    virtual float wait() = 0;
    /// Per area, in area order: the background sum then each stream's, added on the host in a fixed order.
    virtual std::vector<std::vector<double>> area_sums() = 0;
    /// Takes the parameters of @p setup (stream constants, skip thresholds), a setup of the same geometry
    /// as the one prepared, so that the next launch() integrates it without uploading the tables again.
    /// Returns false where the family cannot (the caller then prepares afresh).
    virtual bool retarget(const geometry::IntegrationSetup& setup) {
        (void)setup;
        return false;
    }
};

/// How a family runs its variants.
class KernelFamily {
public:
    virtual ~KernelFamily() = default;
    /// Whether the family has a 48-register build of its kernels (the thesis's Makefile option).
    virtual bool has_capped_build() const = 0;
    /// Whether the family can split an area over several devices (used by default when none is named).
    virtual bool spreads_over_devices() const = 0;
    /// Uploads the tables of @p setup to @p devices (one, unless spreads_over_devices()) and allocates
    /// the outputs, for the launch options @p options.
    virtual std::unique_ptr<PreparedIntegral> prepare(const geometry::IntegrationSetup& setup,
                                                      const std::vector<int>& devices,
                                                      const LaunchOptions& options) const = 0;
};

}  // namespace mwsep::cuda
