/// @file clock_monitor.hpp
/// @brief The SM clock and the throttle state of a GPU while a sample runs, read through NVML.
///
/// A timing is only comparable with another when the GPU ran at the same clock: a sample taken while the
/// GPU was power- or heat-limited is slower for reasons outside the code. A monitor polls the driver's
/// management library (NVML) on a thread of its own while a sample runs and reports the median SM clock
/// and whether any poll saw a throttle reason. NVML is opened at run time (dlopen), so the program starts
/// and builds without it; without it the clock is reported as unknown, never invented.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace harness {

/// What a monitor saw during one sample.
struct ClockReading {
    double sm_clock_mhz = 0;  ///< median SM clock over the polls [MHz]; 0 when unknown
    bool throttled = false;   ///< a power, thermal or hardware slowdown was active in some poll
    int polls = 0;            ///< how many polls the sample lasted (0: NVML unavailable)
};

/// Polls the SM clock and the throttle reasons of one GPU between start() and stop().
class ClockMonitor {
public:
    /// Monitors the GPU with PCI bus id @p pci_bus_id (as cudaDeviceGetPCIBusId writes it), polling every
    /// @p period_us microseconds.
    explicit ClockMonitor(const std::string& pci_bus_id, int period_us = 2000);
    ~ClockMonitor();
    ClockMonitor(const ClockMonitor&) = delete;
    ClockMonitor& operator=(const ClockMonitor&) = delete;

    /// True when NVML was found and knows the device.
    bool available() const { return device_ != nullptr; }
    /// Why NVML is unavailable (empty when it is available).
    const std::string& unavailable_reason() const { return reason_; }
    /// Begins polling.
    void start();
    /// Ends polling and returns what was seen since start().
    ClockReading stop();
    /// One poll now, outside a sample: the current SM clock [MHz] (0 when unknown).
    double current_sm_clock_mhz() const;

private:
    struct Library;
    void poll_once();
    std::shared_ptr<Library> nvml_;
    void* device_ = nullptr;
    std::string reason_;
    int period_us_;
    std::thread thread_;
    std::atomic<bool> running_{false};
    std::mutex mutex_;
    std::vector<unsigned> clocks_;
    bool throttled_ = false;
};

}  // namespace harness
