/// @file progress_bar.hpp
/// @brief Progress on stderr with an estimate of the time left: a redrawn bar on a terminal; otherwise a line
/// per 10% or per minute, whichever comes first; nothing for runs shorter than two seconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>
#include <unistd.h>

namespace mwsep::app {

/// The progress of one long computation on stderr, as the file comment describes; update() is thread-safe.
class ProgressBar {
public:
    /// Starts the clock. @p label begins every line drawn; the bar is redrawn in place only on a terminal.
    explicit ProgressBar(std::string label)
        : label_(std::move(label)), tty_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()) {}
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
            first_done_ = done > 0 ? done - 1 : 0;
            first_elapsed_ = elapsed;
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
        char buf[64];
        if (left < 120) std::snprintf(buf, sizeof buf, ", about %.0f s left", left);
        else if (left < 7200) std::snprintf(buf, sizeof buf, ", about %.0f min left", left / 60);
        else std::snprintf(buf, sizeof buf, ", about %.1f h left", left / 3600);
        return buf;
    }

    std::string label_;
    bool tty_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    int last_percent_ = -1;
    bool drawn_ = false;
    double last_line_ = 0;                           // elapsed seconds at the last line off a terminal
    std::size_t first_done_ = static_cast<std::size_t>(-1);  // work done at the first report
    double first_elapsed_ = 0;                       // seconds at the first report
};

}  // namespace mwsep::app
