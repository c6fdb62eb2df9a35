/// @file thread_pool.hpp
/// @brief Runs a loop body over indices [0, n) on several threads with dynamic scheduling.
#pragma once

#include <cstddef>

#include "harness/threads.hpp"

namespace mwsep::cpu {

/// Calls body(i) for every i in [0, n) on @p threads threads; the first exception is rethrown.
/// The order in which indices run is unspecified, so bodies must write to disjoint outputs.
/// If the system refuses to start a thread (a limit on threads, processes or memory), the loop runs on
/// the threads already started and the calling thread, with a warning on standard error: indices are
/// taken dynamically, so every one still runs exactly once, and callers whose result does not depend on
/// the thread count get the same result (harness::parallel_for, whose loop this is).
template <class Body>
void parallel_for(std::size_t n, int threads, const Body& body) {
    harness::parallel_for(n, threads, body, "mwsep");
}

}  // namespace mwsep::cpu
