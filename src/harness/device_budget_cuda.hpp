/// @file device_budget_cuda.hpp
/// @brief The device side of the memory check (device_budget.hpp): what a device has free now
/// (cudaMemGetInfo), and the check of a plan against it that every GPU command calls before it allocates.
#pragma once

#include <cstddef>
#include <string>

#include "harness/device_budget.hpp"

namespace harness {

/// The memory of CUDA device @p device now (-1: the calling thread's current device): its free and total
/// bytes (cudaMemGetInfo on it; the thread's current device is left as it was) and the test hook's cap
/// (device_memory_limit()); the name is left empty (require_device_memory() reads it for a refusal only).
/// Throws CudaError where the device cannot be queried.
DeviceMemoryState device_memory_state(int device = -1);

/// Refuses @p plan, before anything of it is allocated, where it does not fit device @p device (-1: the
/// current one): throws DeviceMemoryShortage with the numbers (check_device_budget()).
void require_device_memory(const DevicePlan& plan, int device = -1, const std::string& advice = {});

/// The same for one allocation of @p bytes holding @p what.
void require_device_memory(std::size_t bytes, const std::string& what, int device = -1, const std::string& advice = {});

}  // namespace harness
