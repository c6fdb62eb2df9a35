/// @file device.hpp
/// @brief The GPU the measurements run on (the timing itself is the harness's, measure_cuda.hpp).
#pragma once

#include <cuda_runtime.h>

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

}  // namespace munch::app
