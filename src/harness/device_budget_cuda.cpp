#include "harness/device_budget_cuda.hpp"

#include <cuda_runtime.h>

#include "harness/check.hpp"

namespace harness {

DeviceMemoryState device_memory_state(int device) {
    int current = 0;
    check(cudaGetDevice(&current), "read the current device");
    const int target = device < 0 ? current : device;
    DeviceMemoryState s;
    s.device = target;
    s.limit = device_memory_limit();
    // cudaMemGetInfo answers for the current device: select the target for the query only (a green context
    // that is current on the target stays current: use_device() selects only on a change).
    use_device(target, "select the device whose memory is checked");
    const cudaError_t status = cudaMemGetInfo(&s.free, &s.total);
    use_device_quietly(current);
    check(status, "query the device's free memory");
    return s;
}

void require_device_memory(const DevicePlan& plan, int device, const std::string& advice) {
    DeviceMemoryState s = device_memory_state(device);
    if (plan.needed_bytes() <= s.believed_free()) return;  // fits: no more queries (benches call this per sample)
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, s.device), "query the device");
    s.name = prop.name;
    check_device_budget(plan, s, advice);
}

void require_device_memory(std::size_t bytes, const std::string& what, int device, const std::string& advice) {
    DevicePlan plan(what);
    plan.add(what, bytes, 1);
    require_device_memory(plan, device, advice);
}

}  // namespace harness
