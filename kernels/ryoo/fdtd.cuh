/// @file fdtd.cuh
/// @brief The FDTD field updates: one kernel template for the electric field, whose policy is which
/// components one launch updates, and one kernel for the magnetic field. A time step is a launch per field
/// update, because every update reads neighbours that the previous update wrote, and only the end of a
/// launch makes those writes visible to every block (the paper's time-sliced simulators).
///
/// Each thread updates one cell of a 32 x 8 tile of the grid (a warp spans 32 consecutive cells of a row, so
/// that its loads and stores are contiguous); the arithmetic per cell is fdtd_math.hpp's.
#pragma once

#include "ryoo/fdtd_math.hpp"

namespace ryoo::kernels {

/// Threads of a block along x (one warp per row of the tile) and along y.
inline constexpr int fdtd_block_x = 32;
inline constexpr int fdtd_block_y = 8;  ///< threads of a block along y

/// Ey only (the straightforward step launches Ey, Ex and Hz separately, as the three-kernel original does).
struct EyOnly {
    static constexpr bool ex = false;  ///< Ex not updated
    static constexpr bool ey = true;   ///< Ey updated
};
/// Ex only.
struct ExOnly {
    static constexpr bool ex = true;   ///< Ex updated
    static constexpr bool ey = false;  ///< Ey not updated
};
/// Ex and Ey in one launch: both read only Hz, so one pass reads Hz and the coefficient once for both.
struct BothE {
    static constexpr bool ex = true;  ///< Ex updated
    static constexpr bool ey = true;  ///< Ey updated
};

/// Updates the electric field components @p Fields selects, one cell per thread.
template <class Fields>
__global__ void __launch_bounds__(fdtd_block_x * fdtd_block_y)
    ryoo_fdtd_e(float* __restrict__ ex, float* __restrict__ ey, const float* __restrict__ ce, const float* __restrict__ hz, int nx, int ny) {
    const int x = blockIdx.x * fdtd_block_x + threadIdx.x, y = blockIdx.y * fdtd_block_y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const std::size_t c = static_cast<std::size_t>(y) * nx + x;
    const float h = hz[c], coefficient = ce[c];
    if constexpr (Fields::ey)
        if (x > 0) ey[c] = fdtd_ey(ey[c], coefficient, h, hz[c - 1]);
    if constexpr (Fields::ex)
        if (y > 0) ex[c] = fdtd_ex(ex[c], coefficient, h, hz[c - nx]);
}

/// Updates Hz from the curl of E, one cell per thread, and adds @p source at cell @p source_index.
__global__ void __launch_bounds__(fdtd_block_x * fdtd_block_y)
    ryoo_fdtd_hz(float* __restrict__ hz, const float* __restrict__ ch, const float* __restrict__ ex, const float* __restrict__ ey, int nx,
                 int ny, int source_index, float source) {
    const int x = blockIdx.x * fdtd_block_x + threadIdx.x, y = blockIdx.y * fdtd_block_y + threadIdx.y;
    if (x + 1 >= nx || y + 1 >= ny) return;
    const std::size_t c = static_cast<std::size_t>(y) * nx + x;
    float h = fdtd_hz(hz[c], ch[c], ex[c], ex[c + nx], ey[c], ey[c + 1]);
    if (static_cast<long long>(c) == source_index) h += source;
    hz[c] = h;
}

}  // namespace ryoo::kernels
