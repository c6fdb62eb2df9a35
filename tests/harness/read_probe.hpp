/// @file read_probe.hpp
/// @brief A kernel for the engine's tests whose only memory traffic is one read of a buffer: how long it takes
/// tells whether the buffer was in L2.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace harness_test {

/// Enqueues on @p stream one kernel that reads each of the @p n floats of @p in once (@p in 16-byte aligned,
/// @p n a multiple of 4) and sums them; it writes @p sink only if the sum is exactly 1, which a buffer of zeros
/// never gives, so the reads cannot be dropped and nothing is written. Every block of the device takes part.
void enqueue_read_all(const float* in, std::size_t n, float* sink, cudaStream_t stream);

}  // namespace harness_test
