/// @file subsets.hpp
/// @brief The "increased resolutions" step of the MRI case study: an image with more voxels than the device
/// holds (N = 1024³) is divided into subsets of voxels, each reconstructed by its own launches. The voxels of an
/// N₁³ grid in contiguous ranges of their index, and the positions of one range, built without the whole grid.
#pragma once

#include <cstddef>
#include <vector>

#include "kirk_hwu/inputs.hpp"

namespace kirk_hwu {

/// A contiguous range of voxel indices.
struct VoxelRange {
    std::size_t first = 0;  ///< the first voxel
    std::size_t count = 0;  ///< how many
};

/// @p voxels split into @p subsets contiguous ranges in index order, whose sizes differ by one at most (the
/// first ones larger); std::invalid_argument unless 1 ≤ @p subsets ≤ @p voxels.
std::vector<VoxelRange> voxel_subsets(std::size_t voxels, std::size_t subsets);

/// The positions of the voxels @p range of the grid of @p g voxels per edge into @p in's x, y and z (resized),
/// as make_mri_input and set_grid_positions place them: voxel i + g (j + g l) at ((i − g/2)/g, (j − g/2)/g,
/// (l − g/2)/g).
void grid_positions(MriInput& in, int g, VoxelRange range);

}  // namespace kirk_hwu
