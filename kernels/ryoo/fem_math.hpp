/// @file fem_math.hpp
/// @brief The per-node arithmetic of the FEM stand-in (explicit time stepping of the scalar wave equation
/// on a tetrahedral mesh with a lumped mass matrix), written once for the CPU and the GPU.
///
/// One step of node i gathers f = sum_j K_ij u_j over the node's row of the assembled stiffness matrix (in
/// the row's stored order, one fused multiply-add per entry), then v_i = v_i - w_i f and u_i = u_i + dt v_i
/// (symplectic Euler; w_i = dt / m_i). Every operation is a single rounding written out with fmaf, so the
/// CPU and the GPU agree bit for bit as long as they visit a row's entries in the same order.
#pragma once

#include "ryoo/point_math.hpp"

namespace ryoo {

/// One entry of the stiffness gather: @p acc + k u, rounded once.
RYOO_HOST_DEVICE inline float fem_gather(float acc, float k, float u) { return fmaf(k, u, acc); }

/// The velocity after the step: v - w f, rounded once (w = dt / m, f the gathered stiffness force).
RYOO_HOST_DEVICE inline float fem_velocity(float v, float w, float f) { return fmaf(-w, f, v); }

/// The displacement after the step: u + dt v_new, rounded once.
RYOO_HOST_DEVICE inline float fem_displacement(float u, float dt, float v_new) { return fmaf(dt, v_new, u); }

}  // namespace ryoo
