/// @file host_memory.hpp
/// @brief How much host memory a command may allocate, so that a size whose arrays cannot fit is refused,
/// naming its option, before any allocation (rather than ending in std::bad_alloc, or in swapping).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "harness/options.hpp"

namespace harness {

/// The host memory available now (MemAvailable of /proc/meminfo), else the physical memory; 0 if unknown.
inline double available_host_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    double kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024.0;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

/// Throws an OptionError of @p opt naming @p option when @p bytes of host arrays exceed the memory
/// available now; @p what says what they hold.
inline void check_host_bytes(const Options& opt, const std::string& option, double bytes, const std::string& what) {
    const double available = available_host_bytes();
    if (available > 0 && bytes > available) {
        char text[256];
        std::snprintf(text, sizeof text, "needs %.3g GB of host memory for %s, more than the %.3g GB available: expected a smaller value",
                      bytes / 1e9, what.c_str(), available / 1e9);
        throw opt.error(option, text);
    }
}

}  // namespace harness
