/// @file device_tables.hpp
/// @brief Uploads both kernel families share: tables converted to the kernels' precision, the cell
/// directions of an area, and the tidal streams' constants.
#pragma once

#include <cstddef>
#include <vector>

#include "harness/device_budget.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/kernel_set.hpp"
#include "mwsep/tidal_streams.hpp"

namespace mwsep::cuda {

/// @p v converted to Real and zero-padded to @p size values.
template <class Real>
std::vector<Real> convert(const std::vector<double>& v, std::size_t size) {
    std::vector<Real> out(size, Real(0));
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<Real>(v[i]);
    return out;
}

/// Cells of an area rounded up to a multiple of 64: the length of every per-cell buffer.
inline int padded_cells(int cells) { return (cells + 63) / 64 * 64; }

/// The grid sizes of the area of @p t.
inline AreaGrid area_grid(const geometry::AreaTables& t) {
    AreaGrid g;
    g.cells = static_cast<int>(t.cells());
    g.padded = padded_cells(g.cells);
    g.n_nu = t.n_nu();
    g.n_r = t.r.n_r;
    g.n_conv = t.r.n_conv;
    return g;
}

/// Uploads the sky direction of every cell of @p t into @p b (the part of a ThesisBuffers or ModernBuffers
/// both families share), zero-padded to @p padded cells.
template <class Real>
void upload_cell_directions(const geometry::AreaTables& t, int padded, CellDirections<Real>& b, DeviceMemory& mem) {
    b.sinb = mem.upload(convert<Real>(t.sinb, padded), "upload cell directions");
    b.sinl = mem.upload(convert<Real>(t.sinl, padded), "upload cell directions");
    b.cosb = mem.upload(convert<Real>(t.cosb, padded), "upload cell directions");
    b.cosl = mem.upload(convert<Real>(t.cosl, padded), "upload cell directions");
}

/// Adds to @p plan what upload_cell_directions() allocates for @p padded cells of @p real_bytes values.
inline void plan_cell_directions(int padded, std::size_t real_bytes, harness::DevicePlan& plan) {
    plan.add("cell directions (sin b, sin l, cos b, cos l)", static_cast<std::size_t>(padded), real_bytes, 4);
}

/// Adds to @p plan what tidal_streams() allocates with a DeviceMemory (the stream table in both precisions).
inline void plan_tidal_streams(harness::DevicePlan& plan) {
    plan.add<double>("the stream constants", stream_table_size).add<float>("the stream constants", stream_table_size);
}

/// The constants of the tidal streams of @p setup on the host; with @p mem also their device copies and
/// textures (which the thesis's memory families read), owned by @p mem.
TidalStreams tidal_streams(const geometry::IntegrationSetup& setup, DeviceMemory* mem);

}  // namespace mwsep::cuda
