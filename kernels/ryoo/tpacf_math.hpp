/// @file tpacf_math.hpp
/// @brief The per-pair arithmetic of the two-point angular correlation function, written once for the CPU
/// and the GPU: the cosine of the angle between two unit vectors and the angular bin it falls in.
///
/// The bin edges are angles theta_0 < theta_1 < ... < theta_B, stored as their cosines c_0 > c_1 > ... > c_B.
/// A pair with cosine d falls in slot k = the number of edges with c_j >= d: slot 0 is closer than
/// theta_0, slot B beyond theta_B, slots 1 .. B-1 ... B the bins between. Every pair falls in exactly one of
/// the B + 1 slots, so a histogram's total is its number of pairs. The dot product is written with explicit
/// fused multiply-adds, so that the CPU and the GPU round it identically and the histograms agree exactly.
#pragma once

#include "ryoo/point_math.hpp"

namespace ryoo {

/// The most histogram slots (edges + 1) a kernel supports: 32 (at most 31 edges).
inline constexpr int tpacf_max_slots = 32;

/// The cosine of the angle between unit vectors a and b: a.x b.x + a.y b.y + a.z b.z, rounded as written.
RYOO_HOST_DEVICE inline float tpacf_dot(float ax, float ay, float az, float bx, float by, float bz) {
    return fmaf(ax, bx, fmaf(ay, by, az * bz));
}

/// The slot of a pair with cosine @p d: the number of the @p edges cosines (decreasing) that are >= d,
/// found by binary search (as the paper's kernel searched its bin boundaries).
RYOO_HOST_DEVICE inline int tpacf_slot(float d, const float* cosines, int edges) {
    int lo = 0, hi = edges;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (cosines[mid] >= d) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

}  // namespace ryoo
