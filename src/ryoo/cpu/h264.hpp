/// @file h264.hpp
/// @brief H.264 motion estimation on one CPU thread: synthetic frames whose best vectors are known, the SAD
/// of every 4x4 block at every vector of the search window, the 8x8 and 16x16 SADs summed from them, and
/// the best vector of each block.
#pragma once

#include <cstdint>
#include <vector>

namespace ryoo {

/// A reference frame and a current frame made from it, with the shift of each 16x16 macroblock.
struct H264Frames {
    int width = 0;                       ///< pixels per row, a multiple of 16
    int height = 0;                      ///< rows, a multiple of 16
    int range = 0;                       ///< search range R: vectors -R .. R in x and y
    std::vector<std::uint8_t> reference;  ///< width * height luma samples, row-major
    std::vector<std::uint8_t> current;    ///< width * height luma samples, row-major
    std::vector<int> shift_x;             ///< per macroblock (row-major): the x shift the current frame was made with
    std::vector<int> shift_y;             ///< per macroblock: the y shift
    /// Macroblocks per row.
    int mb_columns() const { return width / 16; }
    /// Macroblock rows.
    int mb_rows() const { return height / 16; }
    /// 4x4 blocks per frame.
    long long blocks4() const { return static_cast<long long>(width / 4) * (height / 4); }
};

/// Synthetic frames from @p seed: a textured reference (two sinusoids and uniform noise of +-24, clamped to
/// 0..255), and a current frame whose macroblock m copies the reference displaced by (shift_x[m],
/// shift_y[m]) (uniform in -range/2 .. range/2; edge pixels clamped) plus uniform noise of +- @p noise.
/// Throws std::invalid_argument for sizes not multiples of 16, range outside 1..32 or noise outside 0..16.
H264Frames synthetic_frames(int width, int height, int range, int noise, std::uint64_t seed);

/// The SADs of a search: 4x4 blocks (row-major over the frame's 4x4 grid), 8x8 blocks (row-major over
/// the 8x8 grid) and macroblocks, each with h264_positions(range) SADs per block.
struct H264Sads {
    std::vector<std::uint16_t> sad4;   ///< blocks4 * positions
    std::vector<std::uint16_t> sad8;   ///< blocks8 * positions
    std::vector<std::uint16_t> sad16;  ///< macroblocks * positions
    /// Equal in every SAD (GPU results are compared with the CPU's exactly).
    bool operator==(const H264Sads&) const = default;
};

/// SAD arrays of the right sizes for @p frames, zero.
H264Sads empty_sads(const H264Frames& frames);

/// Every 4x4 SAD of @p frames into @p out.sad4 (one CPU thread).
void h264_sad4_cpu(const H264Frames& frames, H264Sads& out);

/// The 8x8 and 16x16 SADs summed from out.sad4 (four 4x4 SADs per 8x8, four 8x8 per 16x16).
void h264_larger_cpu(const H264Frames& frames, H264Sads& out);

/// The best vector of one block: its position index and its SAD.
struct H264Best {
    int position = 0;   ///< (dy + R) (2R + 1) + (dx + R)
    unsigned sad = 0;   ///< the least SAD
    /// Equal position and SAD.
    bool operator==(const H264Best&) const = default;
};

/// The best vector of each of @p blocks blocks of @p sads (@p positions per block): the least SAD, ties
/// to the vector nearest (0, 0) in |dx| + |dy|, then the lowest position.
std::vector<H264Best> h264_best(const std::vector<std::uint16_t>& sads, long long blocks, int range);

}  // namespace ryoo
