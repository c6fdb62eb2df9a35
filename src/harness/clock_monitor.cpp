#include "harness/clock_monitor.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

namespace harness {
namespace {

// The few NVML declarations this file needs (the header is not part of every CUDA installation). The
// values are NVML's documented ones.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn nvml_success = 0;
constexpr int nvml_clock_sm = 1;
// Throttle (clock event) reasons that mean the GPU was held below its clock by power or heat:
// software power cap 0x4, hardware slowdown 0x8, software thermal 0x20, hardware thermal 0x40,
// hardware power brake 0x80. Idle (0x1) and the application-clock setting (0x2) are not throttling.
constexpr unsigned long long throttle_mask = 0x4ull | 0x8ull | 0x20ull | 0x40ull | 0x80ull;

}  // namespace

/// The NVML entry points, resolved once per monitor.
struct ClockMonitor::Library {
    void* handle = nullptr;
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*shutdown)() = nullptr;
    NvmlReturn (*by_pci)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
    bool initialised = false;
    ~Library() {
        if (initialised && shutdown) shutdown();
        if (handle) dlclose(handle);
    }
};

ClockMonitor::ClockMonitor(const std::string& pci_bus_id, int period_us) : period_us_(period_us) {
    auto lib = std::make_shared<Library>();
    lib->handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        reason_ = "libnvidia-ml.so.1 not found";
        return;
    }
    const auto resolve = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib->handle, name));
        return fn != nullptr;
    };
    const bool found = resolve(lib->init, "nvmlInit_v2") && resolve(lib->shutdown, "nvmlShutdown") &&
                       resolve(lib->by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
                       resolve(lib->clock, "nvmlDeviceGetClockInfo");
    // The reasons call was renamed in newer drivers; either name serves.
    if (!resolve(lib->reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        resolve(lib->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!found || !lib->reasons) {
        reason_ = "NVML lacks an entry point this monitor needs";
        return;
    }
    if (lib->init() != nvml_success) {
        reason_ = "NVML did not initialise";
        return;
    }
    lib->initialised = true;
    NvmlDevice device = nullptr;
    if (lib->by_pci(pci_bus_id.c_str(), &device) != nvml_success || !device) {
        reason_ = "NVML does not know the device at PCI bus id " + pci_bus_id;
        return;
    }
    nvml_ = std::move(lib);
    device_ = device;
}

ClockMonitor::~ClockMonitor() {
    if (running_) stop();
}

void ClockMonitor::poll_once() {
    unsigned mhz = 0;
    unsigned long long reasons = 0;
    const bool clock_ok = nvml_->clock(device_, nvml_clock_sm, &mhz) == nvml_success;
    const bool reasons_ok = nvml_->reasons(device_, &reasons) == nvml_success;
    std::lock_guard<std::mutex> lock(mutex_);
    if (clock_ok) clocks_.push_back(mhz);
    if (reasons_ok && (reasons & throttle_mask)) throttled_ = true;
}

void ClockMonitor::start() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        clocks_.clear();
        throttled_ = false;
    }
    if (!available()) return;
    running_ = true;
    thread_ = std::thread([this] {
        // At least one poll even for a sample shorter than the period.
        do {
            poll_once();
            std::this_thread::sleep_for(std::chrono::microseconds(period_us_));
        } while (running_);
    });
}

ClockReading ClockMonitor::stop() {
    if (running_) {
        running_ = false;
        thread_.join();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    ClockReading r;
    r.polls = static_cast<int>(clocks_.size());
    r.throttled = throttled_;
    if (!clocks_.empty()) {
        std::vector<unsigned> sorted = clocks_;
        std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
        r.sm_clock_mhz = sorted[sorted.size() / 2];
    }
    return r;
}

double ClockMonitor::current_sm_clock_mhz() const {
    if (!available()) return 0;
    unsigned mhz = 0;
    return nvml_->clock(device_, nvml_clock_sm, &mhz) == nvml_success ? mhz : 0;
}

}  // namespace harness
