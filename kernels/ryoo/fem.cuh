/// @file fem.cuh
/// @brief The FEM stand-in's time step: one kernel, one thread per node, that gathers the node's row of the
/// stiffness matrix (compressed rows, entries in the row's stored order) and updates the node's velocity and
/// displacement. The displacement goes to a second array, because other threads still read the old one; the
/// caller swaps the two after each step. The arithmetic per node is fem_math.hpp's.
///
/// The kernel is the same for every variant; the variants differ in the numbering of the mesh's nodes, which
/// decides how scattered a warp's gathers of u are (the paper's unstructured-mesh access pattern).
#pragma once

#include <cstdint>

#include "ryoo/fem_math.hpp"

namespace ryoo::kernels {

/// Threads of a block (one node each).
inline constexpr int fem_block = 256;

/// One time step of nodes 0 .. nodes - 1: f = sum K_ij u_j, v_i = v_i - w_i f, u_next_i = u_i + dt v_i.
__global__ void __launch_bounds__(fem_block)
    ryoo_fem_step(const std::int32_t* __restrict__ row_start, const std::int32_t* __restrict__ column, const float* __restrict__ value,
                  const float* __restrict__ step_weight, const float* __restrict__ u, float* __restrict__ v, float* __restrict__ u_next,
                  float dt, int nodes) {
    const int i = blockIdx.x * fem_block + threadIdx.x;
    if (i >= nodes) return;
    const std::int32_t end = row_start[i + 1];
    float f = 0.0f;
    for (std::int32_t e = row_start[i]; e < end; ++e) f = fem_gather(f, value[e], u[column[e]]);
    const float vn = fem_velocity(v[i], step_weight[i], f);
    v[i] = vn;
    u_next[i] = fem_displacement(u[i], dt, vn);
}

}  // namespace ryoo::kernels
