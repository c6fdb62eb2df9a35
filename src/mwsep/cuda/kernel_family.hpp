/// @file kernel_family.hpp
/// @brief One interface for the two kernel families (the thesis's and the modern one): each prepares its
/// own device state for an evaluation, launches its kernels inside a timed window, and reduces its results
/// to per-area sums. The backend drives every variant through it and never asks which family it has.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "harness/device_budget.hpp"
#include "mwsep/cpu/compressed.hpp"
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
    /// Returns false where the family cannot (the caller then prepares afresh). @p host_threads CPU
    /// threads compute the skip thresholds (the same values for any number).
    virtual bool retarget(const geometry::IntegrationSetup& setup, unsigned host_threads = 1) {
        (void)setup;
        (void)host_threads;
        return false;
    }
    /// retarget() with the skip thresholds given: @p thresholds[i][s] for area i and stream s of @p setup, the
    /// values likelihood::stream_skip_thresholds() gives (computed ahead, while an earlier launch runs). Returns false
    /// where the family cannot (the caller then calls retarget()).
    virtual bool retarget_with(const geometry::IntegrationSetup& setup, const std::vector<std::vector<double>>& thresholds) {
        (void)setup;
        (void)thresholds;
        return false;
    }
    /// retarget() with the skip thresholds computed on the device, by kernels the next launch() queues before
    /// the integral's (inside its timing): no host work but the stream constants. The thresholds follow the
    /// definition of likelihood::stream_skip_thresholds() with the device's arithmetic, so they may differ from the
    /// host's in the last bits, and the integral by as much as a skipped term can (below 2^-60 of it). Returns
    /// false where the family cannot (the compressed family can). A later retarget() or retarget_with() goes back
    /// to host thresholds.
    virtual bool retarget_on_device(const geometry::IntegrationSetup& setup) {
        (void)setup;
        return false;
    }
    /// The skip thresholds of the last launch(), per area then stream; empty where the family does not say.
    virtual std::vector<std::vector<double>> thresholds_in_use() const { return {}; }
    /// Checkpointing (`mwsep run --checkpoint`): the number of groups the work splits into, each a range of
    /// every area's reduction chunks that can run on its own; 0 when the family cannot (the thesis's).
    virtual int checkpoint_groups() const { return 0; }
    /// Numbers per group: the chunk sums (and their compensations) of the group's chunks, every area and
    /// component.
    virtual std::size_t group_width() const { return 0; }
    /// Runs group @p g alone, waits for it and returns its numbers. After every group has run or been
    /// restored, area_sums() adds all chunks in the same order as after launch(): the same bits.
    virtual std::vector<double> run_group(int g) {
        (void)g;
        throw std::logic_error("this kernel family does not run its work in groups");
    }
    /// Puts the numbers of group @p g, saved by an earlier run, back where run_group() leaves them.
    virtual void restore_group(int g, const std::vector<double>& numbers) {
        (void)g, (void)numbers;
        throw std::logic_error("this kernel family does not run its work in groups");
    }
    /// The error controller's account of the last area_sums() (the compressed family); none for the
    /// families that compute the exact sum.
    virtual std::optional<cpu::CompressedReport> controller_report() const { return std::nullopt; }
};

/// The part of a family's preparation that needs no device: host tables computed from the setup alone.
/// Made by KernelFamily::prepare_host() before the devices are ready (so that it overlaps their start-up)
/// and handed to KernelFamily::prepare_with(); what it holds is the family's own.
class HostPreparation {
public:
    virtual ~HostPreparation() = default;
};

/// How a family runs its variants.
class KernelFamily {
public:
    virtual ~KernelFamily() = default;
    /// Whether the family has a 48-register build of its kernels (the thesis's Makefile option).
    virtual bool has_capped_build() const = 0;
    /// Whether the family can split an area over several devices (used by default when none is named).
    virtual bool spreads_over_devices() const = 0;
    /// Adds to @p plan, item by item, what prepare() allocates on one device for the geometry of @p setup with
    /// @p streams streams (setup.streams.size(), or fewer for a fit's partial integrals) when @p slices of its
    /// slices run on that device (1 for a family that does not spread over devices): the same counts and
    /// element sizes as its allocations, computed from the setup's sizes before any allocation (the device
    /// memory check, harness/device_budget.hpp).
    virtual void plan_device_memory(const geometry::IntegrationSetup& setup, std::size_t streams, int slices,
                                    harness::DevicePlan& plan) const = 0;
    /// Uploads the tables of @p setup to @p devices (one, unless spreads_over_devices()) and allocates
    /// the outputs, for the launch options @p options.
    virtual std::unique_ptr<PreparedIntegral> prepare(const geometry::IntegrationSetup& setup,
                                                      const std::vector<int>& devices,
                                                      const LaunchOptions& options) const = 0;
    /// The host part of prepare() for @p setup, computed without touching a device; nullptr for a family
    /// that has none worth doing early (its prepare() computes everything).
    virtual std::unique_ptr<HostPreparation> prepare_host(const geometry::IntegrationSetup& setup) const {
        (void)setup;
        return nullptr;
    }
    /// prepare() with the host part @p host that prepare_host() made for the same @p setup (nullptr: computed
    /// here, as prepare() does). The same device state, bit for bit, either way.
    virtual std::unique_ptr<PreparedIntegral> prepare_with(const geometry::IntegrationSetup& setup,
                                                           const std::vector<int>& devices, const LaunchOptions& options,
                                                           std::unique_ptr<HostPreparation> host) const {
        (void)host;
        return prepare(setup, devices, options);
    }
};

}  // namespace mwsep::cuda
