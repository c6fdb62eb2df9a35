/// @file thread_pool.hpp
/// @brief Runs a loop body over indices [0, n) on several threads with dynamic scheduling.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mwsep::cpu {

/// Calls body(i) for every i in [0, n) on @p threads threads; the first exception is rethrown.
/// The order in which indices run is unspecified, so bodies must write to disjoint outputs.
template <class Body>
void parallel_for(std::size_t n, int threads, Body body) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto worker = [&] {
        try {
            for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
        } catch (...) {
            const std::lock_guard lock(error_mutex);
            if (!error) error = std::current_exception();
            next.store(n);
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace mwsep::cpu
