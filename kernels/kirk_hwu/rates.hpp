/// @file rates.hpp
/// @brief The instruction-rate microbenchmark behind the throughput bounds: how many FP32 fused
/// multiply-adds, special-function sin+cos pairs (`__sinf` and `__cosf` of one argument, as the MRI loop
/// uses them) and reciprocal square roots (`rsqrtf`, as the Coulomb loop uses it) the GPU completes per
/// second when nothing else limits it.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace kirk_hwu::gpu {

/// The operations the microbenchmark times.
const std::vector<std::string>& rate_operations();

/// One timed launch of @p operation's kernel on the current device, on @p stream: the number of
/// operations it completed and the milliseconds the launch took (CUDA events).
struct RateSample {
    double operations = 0;  ///< operations completed (threads × independent chains × iterations)
    double ms = 0;          ///< the launch's time
};
/// Times one launch of @p operation (one of rate_operations(); std::invalid_argument otherwise).
RateSample time_rate(const std::string& operation, cudaStream_t stream);

}  // namespace kirk_hwu::gpu
