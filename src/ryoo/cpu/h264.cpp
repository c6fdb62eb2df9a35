#include "ryoo/cpu/h264.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <stdexcept>
#include <string>

#include "ryoo/h264_math.hpp"

namespace ryoo {
namespace {

/// splitmix64: the same integers on every platform.
struct SplitMix {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform integer in lo .. hi.
    int between(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

std::uint8_t to_pixel(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }

}  // namespace

H264Frames synthetic_frames(int width, int height, int range, int noise, std::uint64_t seed) {
    if (width < 16 || height < 16 || width % 16 || height % 16)
        throw std::invalid_argument("H.264 frames: " + std::to_string(width) + " x " + std::to_string(height) +
                                    "; expected positive multiples of 16");
    if (range < 1 || range > 32) throw std::invalid_argument("H.264 search range " + std::to_string(range) + "; expected 1 to 32");
    if (noise < 0 || noise > 16) throw std::invalid_argument("H.264 noise " + std::to_string(noise) + "; expected 0 to 16");
    H264Frames f;
    f.width = width;
    f.height = height;
    f.range = range;
    SplitMix g{seed};
    f.reference.resize(static_cast<std::size_t>(width) * height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double wave = 60 * std::sin(2 * std::numbers::pi * x / 37.0) * std::cos(2 * std::numbers::pi * y / 23.0) +
                                30 * std::sin(2 * std::numbers::pi * (x + 2 * y) / 71.0);
            f.reference[static_cast<std::size_t>(y) * width + x] = to_pixel(128 + static_cast<int>(std::lround(wave)) + g.between(-24, 24));
        }
    const int mbs = f.mb_columns() * f.mb_rows();
    f.shift_x.resize(mbs);
    f.shift_y.resize(mbs);
    f.current.resize(f.reference.size());
    for (int m = 0; m < mbs; ++m) {
        f.shift_x[m] = g.between(-range / 2, range / 2);
        f.shift_y[m] = g.between(-range / 2, range / 2);
        const int x0 = m % f.mb_columns() * 16, y0 = m / f.mb_columns() * 16;
        for (int j = 0; j < 16; ++j)
            for (int i = 0; i < 16; ++i) {
                const int r = f.reference[static_cast<std::size_t>(h264_clamp(y0 + j + f.shift_y[m], height)) * width +
                                          h264_clamp(x0 + i + f.shift_x[m], width)];
                f.current[static_cast<std::size_t>(y0 + j) * width + x0 + i] = to_pixel(r + (noise ? g.between(-noise, noise) : 0));
            }
    }
    return f;
}

H264Sads empty_sads(const H264Frames& f) {
    const auto p = static_cast<std::size_t>(h264_positions(f.range));
    const auto mbs = static_cast<std::size_t>(f.mb_columns()) * f.mb_rows();
    return {std::vector<std::uint16_t>(static_cast<std::size_t>(f.blocks4()) * p), std::vector<std::uint16_t>(4 * mbs * p),
            std::vector<std::uint16_t>(mbs * p)};
}

void h264_sad4_cpu(const H264Frames& f, H264Sads& out) {
    const int w4 = f.width / 4, h4 = f.height / 4, r = f.range, side = 2 * r + 1;
    const std::size_t p = static_cast<std::size_t>(side) * side;
    const std::uint8_t* cur = f.current.data();
    const std::uint8_t* ref = f.reference.data();
    for (int by = 0; by < h4; ++by)
        for (int bx = 0; bx < w4; ++bx) {
            std::uint16_t* s = out.sad4.data() + (static_cast<std::size_t>(by) * w4 + bx) * p;
            for (int dy = -r; dy <= r; ++dy)
                for (int dx = -r; dx <= r; ++dx)
                    s[(dy + r) * side + dx + r] = static_cast<std::uint16_t>(h264_sad4(cur, ref, f.width, f.height, 4 * bx, 4 * by, dx, dy));
        }
}

void h264_larger_cpu(const H264Frames& f, H264Sads& out) {
    const int w4 = f.width / 4, w8 = f.width / 8, h8 = f.height / 8, w16 = f.width / 16, h16 = f.height / 16;
    const std::size_t p = static_cast<std::size_t>(h264_positions(f.range));
    for (int y = 0; y < h8; ++y)
        for (int x = 0; x < w8; ++x) {
            const std::uint16_t* a = out.sad4.data() + (static_cast<std::size_t>(2 * y) * w4 + 2 * x) * p;
            const std::uint16_t* b = a + static_cast<std::size_t>(w4) * p;  // the 4x4 row below
            std::uint16_t* s = out.sad8.data() + (static_cast<std::size_t>(y) * w8 + x) * p;
            for (std::size_t k = 0; k < p; ++k) s[k] = static_cast<std::uint16_t>(a[k] + a[p + k] + b[k] + b[p + k]);
        }
    for (int y = 0; y < h16; ++y)
        for (int x = 0; x < w16; ++x) {
            const std::uint16_t* a = out.sad8.data() + (static_cast<std::size_t>(2 * y) * w8 + 2 * x) * p;
            const std::uint16_t* b = a + static_cast<std::size_t>(w8) * p;
            std::uint16_t* s = out.sad16.data() + (static_cast<std::size_t>(y) * w16 + x) * p;
            for (std::size_t k = 0; k < p; ++k) s[k] = static_cast<std::uint16_t>(a[k] + a[p + k] + b[k] + b[p + k]);
        }
}

std::vector<H264Best> h264_best(const std::vector<std::uint16_t>& sads, long long blocks, int range) {
    const int side = 2 * range + 1, p = side * side;
    if (sads.size() < static_cast<std::size_t>(blocks) * p) throw std::invalid_argument("h264_best: fewer SADs than blocks x positions");
    std::vector<H264Best> best(static_cast<std::size_t>(blocks));
    for (long long b = 0; b < blocks; ++b) {
        const std::uint16_t* s = sads.data() + static_cast<std::size_t>(b) * p;
        int at = 0, at_norm = 1 << 30;
        for (int k = 0; k < p; ++k) {
            const int norm = std::abs(k % side - range) + std::abs(k / side - range);
            if (s[k] < s[at] || (s[k] == s[at] && norm < at_norm)) {
                at = k;
                at_norm = norm;
            }
        }
        best[static_cast<std::size_t>(b)] = {at, s[at]};
    }
    return best;
}

}  // namespace ryoo
