/// @file tpacf_points.hpp
/// @brief The TPACF points as the kernels read them, shared by `ryoo tpacf` and `ryoo profile-apps`.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace ryoo::app {

/// The points of @p xyz (3 floats each) as float4 (x, y, z, 0), for 16-byte loads.
std::vector<float4> as_float4(const float* xyz, std::size_t count);

}  // namespace ryoo::app
