/// @file thread_pool.hpp
/// @brief Runs a loop body over indices [0, n) on several threads with dynamic scheduling.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace mwsep::cpu {

namespace detail {
/// How many more worker threads may start before a start fails as if the system refused it; negative
/// means no limit. Only tests set it, to check that a refused start is survived without exhausting the
/// machine's real limits.
inline std::atomic<int> thread_starts_allowed{-1};

/// Starts one worker thread, or throws std::system_error as std::thread does when the system refuses.
template <class Worker>
void start_thread(std::vector<std::thread>& pool, Worker& worker) {
    int allowed = thread_starts_allowed.load();
    while (allowed > 0 && !thread_starts_allowed.compare_exchange_weak(allowed, allowed - 1)) {
    }
    if (allowed == 0)
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "thread start refused");
    pool.emplace_back(worker);
}
}  // namespace detail

/// Calls body(i) for every i in [0, n) on @p threads threads; the first exception is rethrown.
/// The order in which indices run is unspecified, so bodies must write to disjoint outputs.
/// If the system refuses to start a thread (a limit on threads, processes or memory), the loop runs on
/// the threads already started and the calling thread, with a warning on standard error: indices are
/// taken dynamically, so every one still runs exactly once, and callers whose result does not depend on
/// the thread count get the same result.
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
    for (int t = 1; t < threads; ++t) {
        // A thread that cannot start (std::system_error), or a pool that cannot grow (std::bad_alloc, before
        // the thread is made), must not unwind past the joinable threads already running: that would call
        // std::terminate. They are kept, and the loop goes on with them.
        try {
            detail::start_thread(pool, worker);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mwsep: warning: could start only %d of %d threads (%s); continuing on %d\n", t,
                         threads, e.what(), t);
            break;
        }
    }
    worker();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace mwsep::cpu
