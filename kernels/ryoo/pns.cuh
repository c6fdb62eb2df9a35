/// @file pns.cuh
/// @brief The Petri-net simulation: one trajectory per thread, no synchronisation between threads (the
/// paper's point: no kernel per time step). Where a trajectory's marking lives is the policy: global
/// memory (the paper's kernel, whose resident trajectories were bounded by the G80's global memory) or
/// shared memory (room that today's SMs have).
#pragma once

#include <cstdint>

#include "ryoo/pns_math.hpp"

namespace ryoo::kernels {

/// Threads (trajectories) per block.
inline constexpr int pns_block = 128;

/// The marking in global memory, place p of trajectory t at state[p * count + t] (consecutive threads,
/// consecutive bytes).
struct GlobalMarking {
    static constexpr bool shared = false;  ///< the marking stays in global memory
};
/// The marking in shared memory for the whole trajectory (place p of thread t at [p * block + t]), copied
/// to the global layout at the end.
struct SharedMarking {
    static constexpr bool shared = true;  ///< the marking lives in shared memory during the run
};

/// Simulates trajectories first .. first + count - 1 of the @p edge x @p edge net for @p steps steps.
template <class Where>
__global__ void __launch_bounds__(pns_block) ryoo_pns(int edge, std::uint32_t seed, std::uint32_t steps, std::uint32_t first,
                                                      std::uint32_t count, std::uint8_t* __restrict__ state,
                                                      std::uint32_t* __restrict__ firings) {
    extern __shared__ std::uint8_t shared_state[];
    const std::uint32_t t = blockIdx.x * pns_block + threadIdx.x;
    if (t >= count) return;
    const int places = edge * edge;
    StridedMarking m = Where::shared ? StridedMarking{shared_state + threadIdx.x, pns_block} : StridedMarking{state + t, count};
    for (int p = 0; p < places; ++p) m[p] = 1;
    std::uint32_t fired = 0;
    const std::uint32_t trajectory = first + t;
    for (std::uint32_t s = 0; s < steps; ++s) fired += pns_fire(m, edge, pns_draw(seed, trajectory, s, static_cast<std::uint32_t>(places))) ? 1u : 0u;
    if constexpr (Where::shared)
        for (int p = 0; p < places; ++p) state[static_cast<std::size_t>(p) * count + t] = m[p];
    firings[t] = fired;
}

}  // namespace ryoo::kernels
