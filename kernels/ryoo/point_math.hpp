/// @file point_math.hpp
/// @brief The per-element arithmetic of the study, written once for the CPU and the GPU.
///
/// Both products (matrix multiplication and SAXPY) reduce to one fused multiply-add per element step. The
/// CPU checks and the GPU kernels call these functions, so the rounding a kernel does is the rounding the
/// checks assume: one rounding per step (fmaf), whatever the compiler's contraction settings.
#pragma once

#include <cmath>

/// Marks a function callable from the CPU and from a kernel (empty outside nvcc).
#if defined(__CUDACC__)
#define RYOO_HOST_DEVICE __host__ __device__
#else
#define RYOO_HOST_DEVICE
#endif

namespace ryoo {

/// One step of a dot product: @p acc + @p a * @p b, rounded once.
RYOO_HOST_DEVICE inline float multiply_add(float a, float b, float acc) { return fmaf(a, b, acc); }

/// One SAXPY element: @p alpha * @p x + @p y, rounded once.
RYOO_HOST_DEVICE inline float saxpy_element(float alpha, float x, float y) { return fmaf(alpha, x, y); }

}  // namespace ryoo
