/// @file fdtd_math.hpp
/// @brief The per-cell arithmetic of the two-dimensional finite-difference time-domain simulation (TE mode
/// on a Yee grid: Ex, Ey and Hz), written once for the CPU and the GPU.
///
/// Cell (x, y) of an nx x ny grid (index y nx + x) holds Ex at (x + 1/2, y), Ey at (x, y + 1/2) and Hz at
/// (x + 1/2, y + 1/2), in units where the cell is 1 long and the speed of light in vacuum is 1. One step
/// updates Ey and Ex from the curl of Hz, then Hz from the curl of E; each update is one fused multiply-add
/// of a per-cell coefficient (the Courant number divided by the relative permittivity or permeability) with
/// a difference, so that the CPU and the GPU round it identically and their fields agree bit for bit.
#pragma once

#include "ryoo/point_math.hpp"

namespace ryoo {

/// Ey from the x-difference of Hz: ey - ce (hz(x, y) - hz(x - 1, y)), rounded as written.
RYOO_HOST_DEVICE inline float fdtd_ey(float ey, float ce, float hz, float hz_left) { return fmaf(-ce, hz - hz_left, ey); }

/// Ex from the y-difference of Hz: ex + ce (hz(x, y) - hz(x, y - 1)), rounded as written.
RYOO_HOST_DEVICE inline float fdtd_ex(float ex, float ce, float hz, float hz_below) { return fmaf(ce, hz - hz_below, ex); }

/// Hz from the curl of E: hz - ch ((ey(x + 1, y) - ey(x, y)) - (ex(x, y + 1) - ex(x, y))), rounded as written.
RYOO_HOST_DEVICE inline float fdtd_hz(float hz, float ch, float ex, float ex_above, float ey, float ey_right) {
    return fmaf(-ch, (ey_right - ey) - (ex_above - ex), hz);
}

}  // namespace ryoo
