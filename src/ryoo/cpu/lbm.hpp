/// @file lbm.hpp
/// @brief LBM on one CPU thread: a lid-driven cavity with an obstacle (D3Q19, BGK, single precision), one
/// stream-and-collide step over the lattice, and the density and kinetic energy the application reports.
///
/// The distributions are stored as an array of structures: cell after cell (index (z ny + y) nx + x), the 19
/// directions of a cell together. A step pushes: each cell collides its own distributions and writes
/// direction i to the neighbour at c_i (lattice edges wrap around; the cavity's walls are obstacle cells, so
/// nothing crosses them).
#pragma once

#include <cstdint>
#include <vector>

namespace ryoo {

/// The lattice of one LBM run.
struct LbmInput {
    int nx = 0;                        ///< cells along x
    int ny = 0;                        ///< cells along y
    int nz = 0;                        ///< cells along z
    float omega = 1;                   ///< BGK relaxation rate (0 .. 2)
    float lid_velocity = 0;            ///< x-velocity of the lid cells
    std::vector<std::uint8_t> flags;   ///< per cell: an LbmCell value
    /// Cells of the lattice.
    std::size_t cells() const { return static_cast<std::size_t>(nx) * ny * nz; }
};

/// A cavity of nx x ny x nz cells: obstacle walls on all six faces, a cube obstacle over x in
/// [nx / 3, nx / 2), y in [ny / 3, 2 ny / 3), z in [nz / 4, nz / 2) when @p obstacle, and when @p lid the
/// fluid layer under the top wall (z = nz - 2) moved at @p lid_velocity along x. Throws
/// std::invalid_argument for a side under 4 cells, omega outside (0, 2) or |lid velocity| of 0.3 or more.
LbmInput lbm_cavity(int nx, int ny, int nz, float omega, float lid_velocity, bool lid, bool obstacle);

/// Every cell at rest at density 1: f_i = w_i (cell after cell, 19 floats each).
std::vector<float> lbm_rest(const LbmInput& in);

/// One stream-and-collide step from @p src to @p dst (19 floats per cell each, cell after cell).
void lbm_step_cpu(const LbmInput& in, const float* src, float* dst);

/// @p steps steps from @p f (swapping between @p f and a scratch lattice); the result is left in @p f.
void lbm_run_cpu(const LbmInput& in, std::vector<float>& f, int steps);

/// What the application reports after its steps: the lattice's mass and the fluid's kinetic energy.
struct LbmSummary {
    double mass = 0;            ///< sum of every distribution of every cell (conserved by every step)
    double kinetic_energy = 0;  ///< sum over fluid and lid cells of rho |u|^2 / 2
};

/// The summary of the lattice @p f (double-precision sums).
LbmSummary lbm_summary(const LbmInput& in, const std::vector<float>& f);

/// The lattice @p aos (cell after cell) stored direction after direction (19 arrays of cells floats).
std::vector<float> lbm_to_soa(const std::vector<float>& aos, std::size_t cells);
/// The lattice @p soa (direction after direction) stored cell after cell.
std::vector<float> lbm_to_aos(const std::vector<float>& soa, std::size_t cells);

}  // namespace ryoo
