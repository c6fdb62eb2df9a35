/// @file worker_pool.hpp
/// @brief Threads started once and given one loop after another: for work repeated many times a second (a
/// fit's per-candidate skip thresholds), where starting threads anew each time (parallel_for) costs more than
/// the loop itself.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "harness/threads.hpp"

namespace mwsep::cpu {

/// A fixed set of worker threads. run(n, body) calls body(i) for every i in [0, n) on the workers and the
/// calling thread, indices taken dynamically, and returns when every call has returned; the first exception
/// is rethrown there. One loop runs at a time: a second caller waits for the first loop to end. A worker that
/// the system refuses to start is left out with a warning (the loops run on those that started), as in
/// parallel_for. Not to be called from inside one of its own loop bodies.
class WorkerPool {
public:
    /// Starts @p threads - 1 workers: with the caller, @p threads threads run each loop (1: the caller alone).
    explicit WorkerPool(unsigned threads) {
        harness::detail::start_workers(workers_, static_cast<int>(threads), worker_, "mwsep");
    }
    ~WorkerPool() {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (auto& t : workers_) t.join();
    }
    WorkerPool(const WorkerPool&) = delete;             ///< owns threads
    WorkerPool& operator=(const WorkerPool&) = delete;  ///< owns threads

    /// Threads that run each loop: the workers that started and the caller.
    unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

    /// body(i) for i in [0, n), on every thread of the pool; see the class.
    void run(std::size_t n, const std::function<void(std::size_t)>& body) {
        const std::lock_guard one_loop(run_mutex_);
        {
            const std::lock_guard lock(mutex_);
            body_ = &body, n_ = n;
            next_.store(0);
            loop_.fetch_add(1);
        }
        wake_.notify_all();
        harness::detail::take_indices(next_, n, body, failure_);
        // Every index is taken; the workers that joined this loop finish theirs. A worker not yet awake finds
        // the loop closed (no body) when it wakes and takes no part, so the caller does not wait for it: on a
        // busy or virtual machine a sleeping thread can take longer to wake than the loop takes. The caller
        // watches the count of workers inside (they are working on a part, so the wait is short) instead of
        // sleeping until the last one wakes it.
        for (;;) {
            while (inside_.load() != 0) std::this_thread::yield();
            const std::lock_guard lock(mutex_);
            if (inside_.load() == 0) {
                body_ = nullptr;
                break;
            }
        }
        failure_.rethrow();
    }

private:
    /// A worker: waits for each new loop, joins it if it is still open, takes its share, says it is done.
    std::function<void()> worker_ = [this] {
        unsigned long long seen = 0;
        for (;;) {
            const std::function<void(std::size_t)>* body;
            std::size_t n;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return stopping_ || loop_.load() != seen; });
                if (stopping_) return;
                seen = loop_.load();
                if (!body_) continue;  // that loop ended before this worker woke
                body = body_, n = n_;
                inside_.fetch_add(1);
            }
            harness::detail::take_indices(next_, n, *body, failure_);
            inside_.fetch_sub(1);
        }
    };

    std::mutex run_mutex_;  // one loop at a time
    std::mutex mutex_;      // guards what follows
    std::condition_variable wake_;
    const std::function<void(std::size_t)>* body_ = nullptr;
    std::size_t n_ = 0;
    std::atomic<std::size_t> inside_{0};       // workers that joined the current loop and are not done with it
                                               // (raised under mutex_, lowered without it)
    std::atomic<unsigned long long> loop_{0};  // counts the loops (written under mutex_), so that a worker joins
                                               // each at most once
    bool stopping_ = false;
    harness::detail::FirstFailure failure_;  // the current loop's first exception
    std::atomic<std::size_t> next_{0};
    std::vector<std::thread> workers_;  // last: started after every member they use is made
};

}  // namespace mwsep::cpu
