/// @file cuda_check.hpp
/// @brief The harness's CUDA error checking and RAII types, by their short names in this study's namespace.
#pragma once

#include "harness/check.hpp"
#include "harness/device_memory.hpp"

namespace mwsep::cuda {
using harness::check;
using harness::CudaError;
using harness::DeviceMemory;
using harness::Event;
using harness::Stream;
}  // namespace mwsep::cuda
