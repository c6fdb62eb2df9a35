/// @file problem.hpp
/// @brief The reconstruction problem: a 3-D ellipsoid phantom whose k-space data are known exactly (its
/// analytic Fourier transform), sampled on a 3-D radial trajectory with the density-compensation weights
/// of its spokes, as the two inputs of the study's kernels: the image grid with the samples for F^H d, and
/// the doubled grid of voxel offsets with the doubled k-space positions for Q (the Toeplitz kernel).
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "kirk_hwu/inputs.hpp"
#include "kirk_hwu/recon/recon_math.hpp"

namespace kirk_hwu::recon {

/// The grid and the trajectory of one size: N₁ voxels per edge, and `spokes` radial lines through the
/// centre of k-space of N₁ samples each.
struct ReconShape {
    int grid;    ///< N₁
    int spokes;  ///< radial lines; samples M = spokes · N₁
    /// Number of samples M.
    int samples() const { return spokes * grid; }
};

/// The shape of @p size: tiny 8³ with 128 spokes (1,024 samples), small 16³ with 256 (4,096), medium 32³
/// with 1,024 (32,768), full 128³ with 782 spokes (100,096 samples, the documents' ≈ 10⁵).
ReconShape recon_shape(Size size);

/// The phantom: ellipsoids after the 3-D Shepp-Logan head (Kak and Slaney), scaled into the field of
/// view [−½, ½)³, with the values of its modified (higher-contrast) form.
std::vector<Ellipsoid> head_phantom();

/// One reconstruction problem, weights folded in as the kernels expect: φ_m = √w_m and d'_m = √w_m d_m,
/// so that Q sums w_m and F^H d sums w_m d_m.
struct ReconProblem {
    ReconShape shape;                         ///< grid and trajectory
    MriInput fhd;                             ///< image voxels and the samples with φ and d'
    MriInput q;                               ///< the (2N₁)³ offsets grid, k doubled, φ (d' zero)
    std::vector<double> weight;               ///< density-compensation weight w_m (includes 1/N₁³)
    std::vector<std::complex<double>> data;   ///< d_m = N₁³ · the phantom's transform at the float k_m
    std::vector<double> truth;                ///< the phantom at each voxel centre
    /// Number of voxels N = N₁³.
    std::size_t voxels() const { return fhd.voxels(); }
    /// Number of samples M.
    std::size_t samples() const { return fhd.samples(); }
};

/// Builds the problem of @p shape for @p phantom: radial spokes along a Fibonacci spiral of directions on
/// the upper hemisphere, samples at (j − N₁/2 + ½) cycles per field of view (j = 0 … N₁−1), weight of a
/// sample the volume of its shell divided among the 2·spokes half-lines, over N₁³.
ReconProblem make_recon_problem(ReconShape shape, const std::vector<Ellipsoid>& phantom);

/// Sets the voxel positions of @p in to the grid of @p g points per edge, ((i − g/2)/g, (j − g/2)/g,
/// (l − g/2)/g) at index i + g (j + g l), as make_mri_input places them.
void set_grid_positions(MriInput& in, int g);

}  // namespace kirk_hwu::recon
