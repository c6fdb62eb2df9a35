/// @file device_memory.hpp
/// @brief Device allocations and texture objects that are released with their owner, on the device that
/// made them, also when an exception unwinds the stack.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "harness/check.hpp"

namespace harness {

/// The bytes every DeviceMemory of this process has asked cudaMalloc for so far (successful allocations),
/// for the tests that compare a command's DevicePlan (device_budget.hpp) with what it really allocated.
inline std::atomic<std::size_t>& device_bytes_requested() {
    static std::atomic<std::size_t> bytes{0};
    return bytes;
}

/// Owns device allocations (and texture objects over them) of the device current at construction.
class DeviceMemory {
public:
    /// Remembers the current device: everything allocated here is freed there.
    DeviceMemory() { check(cudaGetDevice(&device_), "read the current device"); }
    /// Frees on the device that allocated, whichever is current now; a destructor cannot report errors.
    ~DeviceMemory() {
        use_device_quietly(device_);  // selects only on a change: a green context stays current
        destroy_textures();  // textures first: they view the buffers
        for (void* p : owned_) cudaFree(p);
    }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;

    /// An uninitialised device array of @p count values of T (at least one, so the pointer is valid).
    template <class T>
    T* allocate(std::size_t count, const char* what) {
        void* p = nullptr;
        const std::size_t bytes = sizeof(T) * std::max<std::size_t>(count, 1);
        check(cudaMalloc(&p, bytes), what);
        owned_.push_back(p);
        device_bytes_requested() += bytes;
        return static_cast<T*>(p);
    }

    /// A device copy of @p host (synchronous).
    template <class T>
    T* upload(const std::vector<T>& host, const char* what) {
        T* d = allocate<T>(host.size(), what);
        check(cudaMemcpy(d, host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice), what);
        return d;
    }

    /// Takes ownership of texture object @p t (destroyed before the buffers).
    void track_texture(cudaTextureObject_t t) { textures_.push_back(t); }

private:
    void destroy_textures() {
        for (auto t : textures_) cudaDestroyTextureObject(t);
        textures_.clear();
    }

    int device_ = 0;
    std::vector<void*> owned_;
    std::vector<cudaTextureObject_t> textures_;
};

}  // namespace harness
