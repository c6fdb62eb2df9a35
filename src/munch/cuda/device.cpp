#include "munch/cuda/device.hpp"

#include "harness/check.hpp"

namespace munch::app {

DeviceInfo current_device() {
    DeviceInfo d;
    harness::check(cudaGetDevice(&d.device), "read the current device");
    cudaDeviceProp prop{};
    harness::check(cudaGetDeviceProperties(&prop, d.device), "read the device properties");
    d.name = prop.name;
    d.sm_count = prop.multiProcessorCount;
    char bus[64] = {};
    harness::check(cudaDeviceGetPCIBusId(bus, sizeof bus, d.device), "read the PCI bus id");
    d.pci_bus = bus;
    return d;
}

TimedSample time_on_stream(cudaStream_t stream, harness::ClockMonitor& monitor, const std::function<void()>& work) {
    harness::Event start, stop;
    monitor.start();
    start.record(stream);
    work();
    stop.record(stream);
    harness::check(cudaStreamSynchronize(stream), "wait for a sample");
    TimedSample s;
    s.ms = stop.since(start);
    s.clock = monitor.stop();
    return s;
}

}  // namespace munch::app
