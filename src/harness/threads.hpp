/// @file threads.hpp
/// @brief A loop over indices on several threads that survives a thread the system refuses to start: the
/// work goes on with the threads that did start (and the calling one), with a warning, never an abort.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace harness {

namespace detail {
/// Thread starts still allowed before a start fails as the system would fail it; negative: no limit. Only
/// tests set it, so that a refused start is checked without exhausting the machine.
inline std::atomic<int> thread_starts_left{-1};
}  // namespace detail

/// Calls body(i) once for every i in [0, @p n), spread over up to @p threads threads that take indices as
/// they become free; the first exception of a body is rethrown after every thread has stopped. A thread
/// that cannot start (std::system_error, or std::bad_alloc while growing the pool) is reported on standard
/// error, prefixed by @p program, and the loop runs on the threads already started: the joinable threads
/// are never destroyed while running. Bodies must write to disjoint outputs. Returns the threads used.
template <class Body>
int parallel_for(std::size_t n, int threads, const Body& body, const char* program = "warning") {
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    const auto worker = [&] {
        try {
            for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
        } catch (...) {
            const std::lock_guard lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            next.store(n);
        }
    };
    std::vector<std::thread> pool;
    int started = 1;  // the calling thread works too
    for (; started < threads; ++started) {
        try {
            int left = detail::thread_starts_left.load();
            while (left > 0 && !detail::thread_starts_left.compare_exchange_weak(left, left - 1)) {
            }
            if (left == 0)
                throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                        "thread start refused");
            pool.emplace_back(worker);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: warning: could start only %d of %d threads (%s); continuing on %d\n", program,
                         started, threads, e.what(), started);
            break;
        }
    }
    worker();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    return started;
}

}  // namespace harness
