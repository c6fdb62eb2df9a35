#include "kirk_hwu/subsets.hpp"

#include <stdexcept>
#include <string>

namespace kirk_hwu {

std::vector<VoxelRange> voxel_subsets(std::size_t voxels, std::size_t subsets) {
    if (subsets < 1 || subsets > voxels)
        throw std::invalid_argument("voxel_subsets: " + std::to_string(subsets) + " subsets of " + std::to_string(voxels) +
                                    " voxels (between 1 and the voxel count)");
    std::vector<VoxelRange> out;
    const std::size_t base = voxels / subsets, extra = voxels % subsets;
    std::size_t first = 0;
    for (std::size_t s = 0; s < subsets; ++s) {
        const std::size_t count = base + (s < extra ? 1 : 0);
        out.push_back({first, count});
        first += count;
    }
    return out;
}

void grid_positions(MriInput& in, int g, VoxelRange range) {
    const std::size_t edge = static_cast<std::size_t>(g);
    if (range.first + range.count > edge * edge * edge) throw std::out_of_range("grid_positions: the range passes the grid's end");
    in.grid = g;
    in.x.resize(range.count), in.y.resize(range.count), in.z.resize(range.count);
    for (std::size_t k = 0; k < range.count; ++k) {
        const std::size_t v = range.first + k;
        const auto i = static_cast<long long>(v % edge), j = static_cast<long long>(v / edge % edge),
                   l = static_cast<long long>(v / (edge * edge));
        in.x[k] = static_cast<float>((i - g / 2) / static_cast<double>(g));
        in.y[k] = static_cast<float>((j - g / 2) / static_cast<double>(g));
        in.z[k] = static_cast<float>((l - g / 2) / static_cast<double>(g));
    }
}

}  // namespace kirk_hwu
