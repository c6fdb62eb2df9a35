/// @file limits.hpp
/// @brief The kernels of the "limits of CUDA" measurements: an empty kernel, arithmetic-peak kernels in
/// float and double, a streaming copy, and the copies through mapped host memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace munch::gpu {

/// Launches the empty kernel with @p grid blocks of @p block threads on @p stream (checked).
void launch_empty(dim3 grid, dim3 block, cudaStream_t stream);

/// Independent fused multiply-add chains each thread of the peak kernels runs.
inline constexpr int peak_chains = 8;

/// Launches the float peak kernel: @p blocks x 256 threads, each @p iterations x peak_chains FMAs
/// (2 floating-point operations each); a sum that cannot be known at compile time goes to @p sink.
void launch_peak_fp32(int blocks, int iterations, float seed, float* sink, cudaStream_t stream);

/// The double-precision peak kernel, as launch_peak_fp32.
void launch_peak_fp64(int blocks, int iterations, double seed, double* sink, cudaStream_t stream);

/// Copies @p count floats from @p source to @p target with a grid-stride kernel of 16-byte accesses
/// (@p count a multiple of 4; pointers 16-byte aligned). Also the copy through mapped host memory, when
/// one side is a mapped host pointer.
void launch_stream_copy(const float* source, float* target, std::size_t count, cudaStream_t stream);

/// Threads per block of the peak kernels.
inline constexpr int peak_threads = 256;

}  // namespace munch::gpu
