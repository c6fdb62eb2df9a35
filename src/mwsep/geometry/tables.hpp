/// @file tables.hpp
/// @brief Everything derived from a Model before integration: quadrature, stream geometry, and per-area
/// grids (spec 2.5-2.9). Computed once on the host and shared by every integrator, CPU or CUDA.
#pragma once

#include <vector>

#include "mwsep/geometry/gauss_legendre.hpp"
#include "mwsep/math/point.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::geometry {

/// A stream's centre, axis and width in the form the point formulas use (spec 2.5).
struct StreamGeometry {
    math::Vec3<double> centre;  ///< Galactocentric position of the stream centre [kpc]
    math::Vec3<double> axis;    ///< unit vector along the stream
    double two_sigma_sq;        ///< 2 sigma^2 (the CPU divides by it)
    double inv_two_sigma_sq;    ///< 1 / (2 sigma^2) (the GPU multiplies by it)
};

/// Per-r-bin constants of one area (spec 2.7-2.8). Point tables are r-major: [k * n_conv + c].
struct RTable {
    int n_r = 0;                        ///< number of r bins
    int n_conv = 0;                     ///< convolution points per r bin (Gauss-Legendre nodes)
    std::vector<double> irv;            ///< ((r+)^3 - r^3) / 3 * dmu / deg
    std::vector<double> r_centre;       ///< (r+ + r) / 2 [kpc]
    std::vector<double> efficiency;     ///< reff_xr_rp3 at r_centre
    std::vector<double> r_point;        ///< distance of each convolution point [kpc]
    std::vector<double> qw_r3_n;        ///< weight of each convolution point
};

/// One integration area: its grids and the sky direction of every (mu, nu) cell.
struct AreaTables {
    model::Area area;               ///< limits and steps of this area, as in the work unit
    RTable r;                       ///< its per-r-bin constants
    std::vector<double> ids;        ///< per nu bin: sin(nu_hi) - sin(nu_lo)
    std::vector<double> nu_centre;  ///< per nu bin [deg]
    std::vector<double> mu_centre;  ///< per mu bin [deg]
    /// Per cell, index i * n_nu + j (mu major): sin b, sin l, cos b, cos l of the cell centre.
    std::vector<double> sinb, sinl, cosb, cosl;
    /// @var sinl
    /// Per cell: sin l of the cell centre, indexed like sinb.
    /// @var cosb
    /// Per cell: cos b of the cell centre, indexed like sinb.
    /// @var cosl
    /// Per cell: cos l of the cell centre, indexed like sinb.

    int n_mu() const { return area.mu.steps; }  ///< number of mu bins
    int n_nu() const { return area.nu.steps; }  ///< number of nu bins
    std::size_t cells() const { return static_cast<std::size_t>(n_mu()) * n_nu(); }  ///< number of sky cells, n_mu x n_nu
};

/// Everything an integrator needs: immutable after construction.
struct IntegrationSetup {
    model::Model model;                   ///< the validated model
    GaussLegendre rule;                   ///< the n_conv-point rule on [-1, 1] (spec 2.6)
    std::vector<double> offsets;  ///< Delta g_k = 1.8 x_k [mag]
    std::vector<StreamGeometry> streams;  ///< one per stream, in model order (spec 2.5)
    double q_inv_sq = 1;          ///< 1 / q^2
    bool hernquist_fast_path = true;  ///< alpha = delta = 1
    std::vector<AreaTables> areas;        ///< areas[0] is the main wedge, the rest are cuts to subtract (spec 3.3)
};

/// Builds the r-bin constants of one area for the model's r binning.
RTable make_r_table(const model::Area& area, model::RBinning binning, const GaussLegendre& rule,
                    const std::vector<double>& offsets);

/// Builds every table for @p model, the cells' directions on @p threads threads (a mu row each; the same
/// tables on any number of threads).
IntegrationSetup make_setup(const model::Model& model, unsigned threads = 1);

/// Geometry of one stream (centre direction via the survey transforms of stripe @p wedge).
StreamGeometry make_stream_geometry(const model::Stream& s, int wedge);

/// All quadrature points of one line of sight of an area, r-major, with the per-r factors folded in:
/// weight = qw_r3_n x efficiency x irv. A cell's integral is then ids_j x sum_m weight_m f(r_m).
struct FoldedLineOfSight {
    std::vector<double> r_point;  ///< distance of each point [kpc]
    std::vector<double> weight;   ///< folded weight of each point
    double r_min = 0;             ///< smallest r_point
    double r_max = 0;             ///< largest r_point
    double weight_sum = 0;        ///< sum of the weights (all positive)
    int block = 0;                ///< points per r bin (n_conv); bin k holds points [k block, (k + 1) block)
    std::vector<double> block_weight;  ///< per r bin: the sum of its weights
    std::vector<double> block_r_min;   ///< per r bin: its smallest point distance
    std::vector<double> block_r_max;   ///< per r bin: its largest point distance
};

/// Folds the r-bin factors of @p area into one table of points.
FoldedLineOfSight fold_line_of_sight(const AreaTables& area);

/// Direction cosines of a Galactic direction, as the kernels consume them.
struct SkyDirection {
    /// sin b, b the Galactic latitude
    double sinb, sinl, cosb, cosl;
    /// @var sinl
    /// sin l, l the Galactic longitude
    /// @var cosb
    /// cos b
    /// @var cosl
    /// cos l
};
/// Direction cosines of Galactic longitude @p l_deg and latitude @p b_deg [deg], computed in double.
SkyDirection sky_direction(double l_deg, double b_deg);

}  // namespace mwsep::geometry
