/// @file progress_bar.hpp
/// @brief Progress on stderr: a redrawn bar on a terminal, a line per 10% otherwise, nothing for short runs.
#pragma once

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
        const int percent = static_cast<int>(100.0 * done / total);
        if (tty_) {
            if (percent == last_percent_) return;
            const int width = 40, filled = width * percent / 100;
            std::fprintf(stderr, "\r%s [%s%s] %3d%% %6.1fs", label_.c_str(), std::string(filled, '#').c_str(),
                         std::string(width - filled, '.').c_str(), percent, elapsed);
        } else {
            // A log file gets one line per tenth, not a line per update.
            if (percent / 10 == last_percent_ / 10) return;
            std::fprintf(stderr, "%s: %d%% after %.1f s\n", label_.c_str(), percent / 10 * 10, elapsed);
        }
        std::fflush(stderr);
        last_percent_ = percent;
        drawn_ = true;
    }

private:
    std::string label_;
    bool tty_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    int last_percent_ = -1;
    bool drawn_ = false;
};

}  // namespace mwsep::app
