/// @file pns.hpp
/// @brief The Petri-net simulation on one CPU thread (pns_math.hpp's net), and what the application makes
/// of the trajectories: the tokens of every place summed over them and the number of firings.
#pragma once

#include <cstdint>
#include <vector>

namespace ryoo {

/// One PNS run: an edge x edge net, trajectories of steps steps each, random draws from seed.
struct PnsProblem {
    int edge = 8;                     ///< the net is edge x edge places and transitions (2 .. 15)
    std::uint32_t seed = 1;           ///< of every draw
    std::uint32_t steps = 1024;       ///< steps per trajectory
    std::uint32_t trajectories = 1;   ///< independent trajectories
    /// Places (and transitions) of the net.
    int places() const { return edge * edge; }
};

/// Throws std::invalid_argument for an edge outside 2 .. pns_max_edge or no trajectory.
void validate(const PnsProblem& p);

/// The application's result: the tokens of each place summed over the trajectories' final markings, and
/// the firings of all trajectories.
struct PnsResult {
    std::vector<std::uint64_t> tokens;  ///< per place
    std::uint64_t firings = 0;          ///< over every trajectory
    /// Equal in every member (GPU results are compared with the CPU's exactly).
    bool operator==(const PnsResult&) const = default;
};

/// Simulates @p trajectory of @p p into @p marking (places bytes); returns its firings.
std::uint32_t pns_trajectory_cpu(const PnsProblem& p, std::uint32_t trajectory, std::uint8_t* marking);

/// Adds @p count trajectories' final markings (place q of trajectory t at state[q * count + t]) and
/// firings to @p r (the host part of the application, the same for the CPU and the GPU).
void pns_accumulate(PnsResult& r, const std::uint8_t* state, const std::uint32_t* firings, std::uint32_t count, int places);

/// Every trajectory of @p p on one CPU thread, accumulated.
PnsResult pns_cpu(const PnsProblem& p);

}  // namespace ryoo
