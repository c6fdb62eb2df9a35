/// @file h264_math.hpp
/// @brief The arithmetic of H.264 motion estimation, written once for the CPU and the GPU: the search
/// window, where each sum of absolute differences (SAD) is stored, and the SAD of one 4x4 block.
///
/// Frames are 8-bit luma, row-major, width and height multiples of 16. Block (bx, by) of 4x4 pixels is
/// compared with the reference at every vector (dx, dy), -R <= dx, dy <= R; reference pixels outside the
/// frame take the value of the nearest edge pixel (H.264's unrestricted motion vectors; the texture unit's
/// clamp addressing does the same in hardware). Position p = (dy + R) (2R + 1) + (dx + R) indexes the
/// vectors; the SADs of block b are stored at b * positions + p. SADs are exact integers: a 4x4 SAD is at
/// most 16 * 255, a 16x16 SAD at most 256 * 255, both below 2^16.
#pragma once

#include <cstdint>

#include "ryoo/point_math.hpp"

namespace ryoo {

/// Vectors of a search of range @p range: (2 range + 1)^2.
RYOO_HOST_DEVICE inline int h264_positions(int range) { return (2 * range + 1) * (2 * range + 1); }

/// @p v clamped to 0 .. @p n - 1 (the nearest edge pixel).
RYOO_HOST_DEVICE inline int h264_clamp(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

/// The SAD of the 4x4 block at pixel (@p x0, @p y0) of @p cur against @p ref displaced by (@p dx, @p dy),
/// both @p width x @p height, reference pixels clamped to the frame.
RYOO_HOST_DEVICE inline unsigned h264_sad4(const std::uint8_t* cur, const std::uint8_t* ref, int width, int height, int x0, int y0,
                                           int dx, int dy) {
    unsigned sad = 0;
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) {
            const int c = cur[(y0 + j) * width + x0 + i];
            const int r = ref[h264_clamp(y0 + j + dy, height) * width + h264_clamp(x0 + i + dx, width)];
            sad += static_cast<unsigned>(c > r ? c - r : r - c);
        }
    return sad;
}

}  // namespace ryoo
