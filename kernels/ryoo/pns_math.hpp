/// @file pns_math.hpp
/// @brief The stochastic Petri net of the PNS application, written once for the CPU and the GPU.
///
/// The net is a torus of n x n places and n x n transitions. Transition (i, j) takes a token from place
/// (i, j) and one from place (i, j+1) and puts one on place (i+1, j) and one on place (i+1, j+1), indices
/// mod n: every firing keeps the number of tokens. A trajectory starts with one token on every place; at
/// each step it draws a transition from a counter-based random number of (seed, trajectory, step) and fires
/// it when both its input places hold a token. The draw depends on nothing but its counter, so a trajectory
/// is the same on the CPU and the GPU, however the trajectories are spread over threads or launches.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ryoo/point_math.hpp"

namespace ryoo {

/// The largest net edge: n^2 tokens must fit a byte.
inline constexpr int pns_max_edge = 15;

/// A 32-bit hash of three words (a murmur3-style finaliser over their mix): the random source of a step.
RYOO_HOST_DEVICE inline std::uint32_t pns_hash(std::uint32_t seed, std::uint32_t trajectory, std::uint32_t step) {
    std::uint32_t h = seed ^ (trajectory * 0x9E3779B1u) ^ (step * 0x85EBCA77u);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

/// The transition drawn at @p step of @p trajectory among @p transitions: multiply-shift of the hash.
RYOO_HOST_DEVICE inline std::uint32_t pns_draw(std::uint32_t seed, std::uint32_t trajectory, std::uint32_t step,
                                               std::uint32_t transitions) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(pns_hash(seed, trajectory, step)) * transitions) >> 32);
}

/// Fires transition @p t of the n x n net on @p marking when it is enabled; returns whether it fired.
/// @p marking is any indexable view of the n^2 places (an array, or a strided slice of a shared buffer).
template <class Marking>
RYOO_HOST_DEVICE inline bool pns_fire(Marking& marking, int n, std::uint32_t t) {
    const int i = static_cast<int>(t) / n, j = static_cast<int>(t) % n;
    const int down = i + 1 == n ? 0 : i + 1, right = j + 1 == n ? 0 : j + 1;
    const int in0 = i * n + j, in1 = i * n + right, out0 = down * n + j, out1 = down * n + right;
    if (marking[in0] == 0 || marking[in1] == 0) return false;
    marking[in0] = static_cast<std::uint8_t>(marking[in0] - 1);
    marking[in1] = static_cast<std::uint8_t>(marking[in1] - 1);
    marking[out0] = static_cast<std::uint8_t>(marking[out0] + 1);
    marking[out1] = static_cast<std::uint8_t>(marking[out1] + 1);
    return true;
}

/// A strided view of one trajectory's marking: place p at base[p * stride].
struct StridedMarking {
    std::uint8_t* base;     ///< place 0
    std::uint32_t stride;   ///< bytes between consecutive places
    /// Place @p p.
    RYOO_HOST_DEVICE std::uint8_t& operator[](int p) const { return base[static_cast<std::size_t>(p) * stride]; }
};

}  // namespace ryoo
