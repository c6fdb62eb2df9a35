/// @file fdtd.hpp
/// @brief FDTD on one CPU thread: a user-defined medium (per-cell relative permittivity and permeability), a
/// synthetic one (vacuum with a dielectric block and a point source), the field update of one time step and
/// the field-energy probe the application evaluates after every step.
///
/// Boundaries: the outer walls are perfect conductors for E (Ey is never updated in column 0, Ex never in
/// row 0) and Hz is held at zero in the last column and row; the closed cavity loses no energy.
#pragma once

#include <cstdint>
#include <vector>

namespace ryoo {

/// The medium, its update coefficients and the source of one FDTD run.
struct FdtdInput {
    int nx = 0;              ///< cells along x (a row)
    int ny = 0;              ///< cells along y (rows)
    float courant = 0;       ///< time step over cell length (c = 1); stable below 1 / sqrt(2)
    std::vector<float> eps;  ///< relative permittivity per cell
    std::vector<float> mu;   ///< relative permeability per cell
    std::vector<float> ce;   ///< courant / eps per cell (the E updates' coefficient)
    std::vector<float> ch;   ///< courant / mu per cell (the H update's coefficient)
    int source_x = -1;       ///< column of the point source (-1: none)
    int source_y = -1;       ///< row of the point source
    double period = 40;      ///< period of the source's sine [steps]
    /// Cells of the grid.
    std::size_t cells() const { return static_cast<std::size_t>(nx) * ny; }
    /// Index of the source cell, or -1 without a source.
    int source_index() const { return source_x < 0 ? -1 : source_y * nx + source_x; }
};

/// The fields of one run, each nx * ny floats (index y nx + x).
struct FdtdFields {
    std::vector<float> ex;  ///< Ex at (x + 1/2, y)
    std::vector<float> ey;  ///< Ey at (x, y + 1/2)
    std::vector<float> hz;  ///< Hz at (x + 1/2, y + 1/2)
    /// Equal in every member (GPU fields are compared with the CPU's exactly).
    bool operator==(const FdtdFields&) const = default;
};

/// A medium of relative permittivity @p eps and permeability @p mu from per-cell arrays (nx * ny each),
/// without a source. Throws std::invalid_argument for a grid under 4 x 4, arrays of the wrong length, a
/// permittivity or permeability not above zero, or a Courant number outside (0, 1).
FdtdInput fdtd_medium(int nx, int ny, float courant, std::vector<float> eps, std::vector<float> mu);

/// The synthetic medium: vacuum with a dielectric block (relative permittivity 4) over columns
/// [0.55 nx, 0.75 nx) and rows [0.3 ny, 0.7 ny), Courant number 0.5, and a point source at (nx / 4, ny / 2)
/// whose sine has a period of 40 steps (a wavelength of 20 cells in vacuum).
FdtdInput synthetic_medium(int nx, int ny);

/// Fields at rest (all zero) for @p in.
FdtdFields zero_fields(const FdtdInput& in);

/// The source's value added to Hz at the source cell in step @p step (0, 1, ...): sin(2 pi (step + 1) / period).
float fdtd_source(const FdtdInput& in, int step);

/// One time step: Ey, then Ex, then Hz (plus @p source at the source cell).
void fdtd_step_cpu(const FdtdInput& in, FdtdFields& f, float source);

/// The electromagnetic energy of the fields, (sum of eps (ex^2 + ey^2) + mu hz^2) / 2, in double precision.
double fdtd_energy(const FdtdInput& in, const FdtdFields& f);

/// @p steps time steps from @p f, the source driven by fdtd_source; when @p energies is not null the energy
/// after each step is appended to it (the application's probe).
void fdtd_run_cpu(const FdtdInput& in, FdtdFields& f, int steps, std::vector<double>* energies);

}  // namespace ryoo
