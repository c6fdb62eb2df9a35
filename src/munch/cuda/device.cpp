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

}  // namespace munch::app
