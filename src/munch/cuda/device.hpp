/// @file device.hpp
/// @brief The GPU the measurements run on, and the timing of one sample with its clock reading.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "harness/clock_monitor.hpp"

namespace munch::app {

/// The current GPU.
struct DeviceInfo {
    int device = 0;        ///< CUDA device number
    std::string name;      ///< as the driver names it
    int sm_count = 0;      ///< streaming multiprocessors
    std::string pci_bus;   ///< PCI bus id, for NVML
};

/// The current device (initialising the CUDA context).
DeviceInfo current_device();

/// One timed sample: GPU milliseconds between two events around @p work on @p stream, and the clock.
struct TimedSample {
    double ms = 0;                 ///< event time
    harness::ClockReading clock;   ///< what the clock monitor saw while it ran
};

/// Runs @p work between two events on @p stream under @p monitor and waits for it.
TimedSample time_on_stream(cudaStream_t stream, harness::ClockMonitor& monitor, const std::function<void()>& work);

}  // namespace munch::app
