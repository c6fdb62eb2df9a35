/// @file residency.hpp
/// @brief Imposing a number of resident blocks per SM with unused dynamic shared memory (ballast), to
/// reproduce on a large GPU the residency limits of the G80 that the paper's register cliff is about.
#pragma once

#include <cstddef>

namespace ryoo {

/// The dynamic shared memory per block [bytes] with which exactly @p blocks_per_sm blocks of
/// @p threads_per_block threads of @p kernel fit on an SM of the current device (0 for blocks_per_sm = 0).
/// Also raises the kernel's dynamic shared-memory limit and asks for the largest shared-memory carveout.
/// Throws std::runtime_error when the occupancy calculator does not confirm the count.
std::size_t residency_ballast(const void* kernel, int threads_per_block, int blocks_per_sm);

}  // namespace ryoo
