// H.264 motion estimation on the CPU against independent checks: SADs worked out by hand, a naive SAD
// written here from the definition, the identity SAD = 0 at the shift a noiseless frame was made with,
// the known shifts found as best vectors with noise, and the larger blocks as sums of their parts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "ryoo/cpu/h264.hpp"
#include "ryoo/h264_math.hpp"

namespace ryoo {
namespace {

/// The SAD from the definition, with its own edge clamping.
unsigned naive_sad(const H264Frames& f, int x0, int y0, int n, int dx, int dy) {
    unsigned s = 0;
    for (int y = y0; y < y0 + n; ++y)
        for (int x = x0; x < x0 + n; ++x) {
            const int rx = std::min(std::max(x + dx, 0), f.width - 1), ry = std::min(std::max(y + dy, 0), f.height - 1);
            s += static_cast<unsigned>(std::abs(int(f.current[y * f.width + x]) - int(f.reference[ry * f.width + rx])));
        }
    return s;
}

TEST(RyooH264, HandWorkedSadWithClampedEdge) {
    // A 16 x 16 frame: current all 10, reference column x holds x. At (0, 0) with dx = -1 the first column
    // reads x = -1, clamped to column 0: per row |10-0| + |10-0| + |10-1| + |10-2| = 37, four rows: 148.
    std::vector<std::uint8_t> cur(256, 10), ref(256);
    for (int i = 0; i < 256; ++i) ref[i] = static_cast<std::uint8_t>(i % 16);
    EXPECT_EQ(h264_sad4(cur.data(), ref.data(), 16, 16, 0, 0, -1, 0), 148u);
    // At (12, 0) with dx = 2: columns 14, 15, 15, 15 (clamped): 4 + 5 + 5 + 5 = 19 per row.
    EXPECT_EQ(h264_sad4(cur.data(), ref.data(), 16, 16, 12, 0, 2, 0), 76u);
}

TEST(RyooH264, EverySadMatchesTheDefinitionAndLargerBlocksAreSums) {
    const H264Frames f = synthetic_frames(48, 32, 4, 2, 7);
    H264Sads s = empty_sads(f);
    h264_sad4_cpu(f, s);
    h264_larger_cpu(f, s);
    const int side = 9, w4 = 12, w8 = 6, w16 = 3;
    for (int dy = -4; dy <= 4; ++dy)
        for (int dx = -4; dx <= 4; ++dx) {
            const int p = (dy + 4) * side + dx + 4;
            for (int b = 0; b < w4 * 8; ++b) ASSERT_EQ(s.sad4[b * 81 + p], naive_sad(f, 4 * (b % w4), 4 * (b / w4), 4, dx, dy));
            for (int b = 0; b < w8 * 4; ++b) ASSERT_EQ(s.sad8[b * 81 + p], naive_sad(f, 8 * (b % w8), 8 * (b / w8), 8, dx, dy));
            for (int b = 0; b < w16 * 2; ++b) ASSERT_EQ(s.sad16[b * 81 + p], naive_sad(f, 16 * (b % w16), 16 * (b / w16), 16, dx, dy));
        }
}

TEST(RyooH264, NoiselessFramesHaveZeroSadAtTheirShifts) {
    const H264Frames f = synthetic_frames(64, 48, 8, 0, 3);
    H264Sads s = empty_sads(f);
    h264_sad4_cpu(f, s);
    h264_larger_cpu(f, s);
    const auto best = h264_best(s.sad16, f.mb_columns() * f.mb_rows(), f.range);
    for (int m = 0; m < f.mb_columns() * f.mb_rows(); ++m) {
        const int p = (f.shift_y[m] + 8) * 17 + f.shift_x[m] + 8;
        EXPECT_EQ(s.sad16[m * 289 + p], 0u) << "macroblock " << m;
        EXPECT_EQ(best[m].sad, 0u);
    }
}

TEST(RyooH264, TheKnownShiftsAreTheBestVectorsWithNoise) {
    const H264Frames f = synthetic_frames(176, 144, 16, 2, 1);
    H264Sads s = empty_sads(f);
    h264_sad4_cpu(f, s);
    h264_larger_cpu(f, s);
    const auto best = h264_best(s.sad16, f.mb_columns() * f.mb_rows(), f.range);
    for (int m = 0; m < f.mb_columns() * f.mb_rows(); ++m) {
        EXPECT_EQ(best[m].position % 33 - 16, f.shift_x[m]) << "macroblock " << m;
        EXPECT_EQ(best[m].position / 33 - 16, f.shift_y[m]) << "macroblock " << m;
    }
}

TEST(RyooH264, BadFramesAreRefused) {
    EXPECT_THROW(synthetic_frames(40, 32, 4, 0, 1), std::invalid_argument);
    EXPECT_THROW(synthetic_frames(32, 32, 0, 0, 1), std::invalid_argument);
    EXPECT_THROW(synthetic_frames(32, 32, 4, 17, 1), std::invalid_argument);
}

}  // namespace
}  // namespace ryoo
