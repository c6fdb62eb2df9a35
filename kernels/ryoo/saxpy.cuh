/// @file saxpy.cuh
/// @brief SAXPY (y <- alpha x + y), the paper's bandwidth-bound counterpoint, and the copy kernel that
/// measures the bandwidth it is compared with. The access width is the policy: one float or one float4 per
/// thread and iteration; the loops stride over the grid so that one launch covers any length.
#pragma once

#include <cstddef>

#include "ryoo/point_math.hpp"

namespace ryoo::kernels {

/// One float per thread and iteration.
struct ScalarAccess {
    static constexpr int width = 1;  ///< floats per access
};

/// One 128-bit access (four floats) per thread and iteration.
struct VectorAccess {
    static constexpr int width = 4;  ///< floats per access
};

/// y[i] <- alpha x[i] + y[i] for i < count (count a multiple of Access::width; the host checks).
template <class Access>
__global__ void ryoo_saxpy(float alpha, const float* __restrict__ x, float* __restrict__ y, std::size_t count) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if constexpr (Access::width == 1) {
        for (std::size_t i = first; i < count; i += stride) y[i] = saxpy_element(alpha, x[i], y[i]);
    } else {
        const auto* x4 = reinterpret_cast<const float4*>(x);
        auto* y4 = reinterpret_cast<float4*>(y);
        for (std::size_t i = first; i < count / 4; i += stride) {
            const float4 xv = x4[i];
            float4 yv = y4[i];
            yv.x = saxpy_element(alpha, xv.x, yv.x);
            yv.y = saxpy_element(alpha, xv.y, yv.y);
            yv.z = saxpy_element(alpha, xv.z, yv.z);
            yv.w = saxpy_element(alpha, xv.w, yv.w);
            y4[i] = yv;
        }
    }
}

/// to[i] <- from[i] with 128-bit accesses: the reference bandwidth of reading and writing device memory.
__global__ void ryoo_copy(const float4* __restrict__ from, float4* __restrict__ to, std::size_t count4) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count4; i += stride)
        to[i] = from[i];
}

}  // namespace ryoo::kernels
