#include "mwsep/cuda/devices.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "mwsep/cuda_check.hpp"

namespace mwsep::cuda {

bool supports_double(int major, int minor) { return major > 1 || (major == 1 && minor >= 3); }

namespace {

/// Whether the device @p p has double precision.
bool has_double(const cudaDeviceProp& p) { return supports_double(p.major, p.minor); }

}  // namespace

int device_count() {
    harness::require_gpu();  // no driver, no device, an old driver: said in the words every program uses
    int count = 0;
    check(cudaGetDeviceCount(&count), "count CUDA devices");
    return count;
}

std::vector<int> ranked_devices(bool need_double) {
    std::vector<std::pair<double, int>> rated;
    const int count = device_count();
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p{};
        check(cudaGetDeviceProperties(&p, d), "query a device");
        int clock_khz = 0;
        check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d), "query a device's clock rate");
        if (!need_double || has_double(p))
            rated.emplace_back(static_cast<double>(p.multiProcessorCount) * clock_khz, d);
    }
    if (rated.empty()) throw CudaError("no CUDA device with double precision");
    std::stable_sort(rated.begin(), rated.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<int> out;
    for (const auto& r : rated) out.push_back(r.second);
    return out;
}

int select_device(int requested, bool need_double) {
    if (requested < 0) return ranked_devices(need_double).front();
    const int count = device_count();
    if (requested >= count)
        throw CudaError("--device " + std::to_string(requested) + " does not exist (" + std::to_string(count) +
                        " devices)");
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, requested), "query the device");
    if (need_double && !has_double(p))
        throw CudaError(std::string("device ") + p.name + " has no double precision");
    return requested;
}

}  // namespace mwsep::cuda
