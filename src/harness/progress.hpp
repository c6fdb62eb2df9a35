/// @file progress.hpp
/// @brief Long work as every command shows it: progress on stderr with an estimate of the time left (a
/// redrawn bar on a terminal; otherwise a line per 10% or per minute, whichever comes first; nothing for runs
/// shorter than two seconds), a duration in words, and the deadline a user's `--time-limit` sets.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>
#include <unistd.h>

namespace harness {

/// @p seconds in words a reader takes in at a glance: "40 s", "12 min", "3.5 h".
inline std::string duration_text(double seconds) {
    char buf[64];
    if (!(seconds < 1e9)) return "a very long time";
    if (seconds < 120) std::snprintf(buf, sizeof buf, "%.0f s", std::max(seconds, 1.0));
    else if (seconds < 7200) std::snprintf(buf, sizeof buf, "%.0f min", seconds / 60);
    else std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
    return buf;
}


/// The progress of one long computation on stderr, as the file comment describes; update() is thread-safe.
class ProgressBar {
public:
    /// Starts the clock. @p label begins every line drawn; the bar is redrawn in place only on a terminal.
    /// @p from_zero: nothing was done when the clock started, so the first report already gives a rate (a
    /// resumed computation leaves it false: the work found done at the first report does not count).
    explicit ProgressBar(std::string label, bool from_zero = false)
        : label_(std::move(label)), tty_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()),
          from_zero_(from_zero) {}
    ~ProgressBar() {
        if (drawn_ && tty_) std::fputc('\n', stderr);
    }

    /// Reports @p done of @p total; draws only after the first two seconds.
    void update(std::size_t done, std::size_t total) {
        const std::lock_guard lock(mutex_);
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (elapsed < 2.0 || total == 0) return;
        if (first_done_ == static_cast<std::size_t>(-1)) {
            // Work found done at the first report (a resumed checkpoint) does not count towards the rate.
            first_done_ = from_zero_ ? 0 : done > 0 ? done - 1 : 0;
            first_elapsed_ = from_zero_ ? 0 : elapsed;
        }
        const int percent = static_cast<int>(100.0 * done / total);
        const std::string left = time_left(done, total, elapsed);
        if (tty_) {
            if (percent == last_percent_) return;
            const int width = 40, filled = width * percent / 100;
            std::fprintf(stderr, "\r%s [%s%s] %3d%% %6.1fs%s", label_.c_str(), std::string(filled, '#').c_str(),
                         std::string(width - filled, '.').c_str(), percent, elapsed, left.c_str());
        } else {
            // A log file gets a line per tenth or per minute, not a line per update.
            if (percent / 10 == last_percent_ / 10 && elapsed - last_line_ < 60.0) return;
            std::fprintf(stderr, "%s: %d%% after %.1f s%s\n", label_.c_str(), percent, elapsed, left.c_str());
            last_line_ = elapsed;
        }
        std::fflush(stderr);
        last_percent_ = percent;
        drawn_ = true;
    }

private:
    /// ", about N s left" from the rate since the first report; empty until there is a rate.
    std::string time_left(std::size_t done, std::size_t total, double elapsed) const {
        const double rate_items = static_cast<double>(done - std::min(done, first_done_));
        const double rate_time = elapsed - first_elapsed_;
        if (rate_items <= 0 || rate_time <= 0 || done >= total) return {};
        const double left = rate_time / rate_items * static_cast<double>(total - done);
        return ", about " + duration_text(left) + " left";
    }

    std::string label_;
    bool tty_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    int last_percent_ = -1;
    bool drawn_ = false;
    double last_line_ = 0;                           // elapsed seconds at the last line off a terminal
    bool from_zero_;
    std::size_t first_done_ = static_cast<std::size_t>(-1);  // work done at the first report
    double first_elapsed_ = 0;                       // seconds at the first report
};

/// The command stopped at the user's `--time-limit` (what() says when and what it finished).
class TimeLimitReached : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The time a whole command may take: a user's `--time-limit S`, counted from the deadline's creation.
/// Without one (the default) it never passes. A command tells it what it has finished (note()), so that
/// the message of check() says what the output holds.
class Deadline {
public:
    /// No limit.
    Deadline() = default;
    /// @p limit_s seconds from now (not finite: no limit); @p option names where the limit came from.
    explicit Deadline(double limit_s, std::string option = "--time-limit")
        : limit_s_(limit_s), option_(std::move(option)), start_(std::chrono::steady_clock::now()) {}

    /// Whether a limit is set.
    bool set() const { return std::isfinite(limit_s_); }
    /// The limit [s] (infinite when none).
    double limit_s() const { return limit_s_; }
    /// Seconds since the deadline was created.
    double elapsed_s() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    /// Seconds left (infinite without a limit; 0 once passed).
    double left_s() const { return set() ? std::max(0.0, limit_s_ - elapsed_s()) : std::numeric_limits<double>::infinity(); }
    /// Records what the command has finished so far, for the message of check().
    void note(std::string finished) { finished_ = std::move(finished); }
    /// Throws TimeLimitReached when the limit has passed, saying what was finished.
    void check() const {
        if (!set() || elapsed_s() < limit_s_) return;
        char buf[160];
        std::snprintf(buf, sizeof buf, "stopped at %s %g s (after %.1f s)", option_.c_str(), limit_s_, elapsed_s());
        throw TimeLimitReached(std::string(buf) + (finished_.empty() ? "" : "; finished: " + finished_));
    }

private:
    double limit_s_ = std::numeric_limits<double>::infinity();
    std::string option_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::string finished_;
};

}  // namespace harness
