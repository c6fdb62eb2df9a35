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
#include <utility>
#include <vector>

namespace harness {

namespace detail {
/// Thread starts still allowed before a start fails as the system would fail it; negative: no limit. Only
/// tests set it, so that a refused start is checked without exhausting the machine.
inline std::atomic<int> thread_starts_left{-1};

/// The first exception of a loop's bodies, kept for the caller (set from any thread).
class FirstFailure {
public:
    /// Keeps the exception being handled unless one is kept already.
    void keep_current() {
        const std::lock_guard lock(mutex_);
        if (!failure_) failure_ = std::current_exception();
    }
    /// Rethrows the kept exception, if any, and forgets it.
    void rethrow() {
        std::exception_ptr f;
        {
            const std::lock_guard lock(mutex_);
            f = std::exchange(failure_, nullptr);
        }
        if (f) std::rethrow_exception(f);
    }

private:
    std::mutex mutex_;
    std::exception_ptr failure_;
};

/// Calls body(i) for the indices [0, @p n) that @p next hands out, until none is left; a body's exception is
/// kept in @p failure and ends the loop for every thread taking from @p next.
template <class Body>
void take_indices(std::atomic<std::size_t>& next, std::size_t n, const Body& body, FirstFailure& failure) {
    try {
        for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
    } catch (...) {
        failure.keep_current();
        next.store(n);
    }
}

/// Starts up to @p threads - 1 threads running @p worker into @p pool. A thread that cannot start
/// (std::system_error, or std::bad_alloc while growing the pool) is reported on standard error, prefixed by
/// @p program, and no more are started: the joinable threads already running are kept. Returns the threads
/// that run the work, the calling thread counted.
template <class Worker>
int start_workers(std::vector<std::thread>& pool, int threads, const Worker& worker, const char* program) {
    int started = 1;  // the calling thread works too
    for (; started < threads; ++started) {
        try {
            int left = thread_starts_left.load();
            while (left > 0 && !thread_starts_left.compare_exchange_weak(left, left - 1)) {
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
    return started;
}
}  // namespace detail

/// Calls body(i) once for every i in [0, @p n), spread over up to @p threads threads that take indices as
/// they become free; the first exception of a body is rethrown after every thread has stopped. A thread
/// that cannot start is reported on standard error, prefixed by @p program, and the loop runs on the threads
/// already started (detail::start_workers). Bodies must write to disjoint outputs. Returns the threads used.
template <class Body>
int parallel_for(std::size_t n, int threads, const Body& body, const char* program = "warning") {
    std::atomic<std::size_t> next{0};
    detail::FirstFailure failure;
    const auto worker = [&] { detail::take_indices(next, n, body, failure); };
    std::vector<std::thread> pool;
    const int started = detail::start_workers(pool, threads, worker, program);
    worker();
    for (auto& t : pool) t.join();
    failure.rethrow();
    return started;
}

}  // namespace harness
