/// @file device_buffer.hpp
/// @brief A device array of floats that frees itself, and the checked uploads and downloads of one.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "harness/check.hpp"

namespace munch::gpu {

/// An owned device array of floats.
class DeviceFloats {
public:
    DeviceFloats() = default;
    /// @p count uninitialised floats (at least one, so that the pointer is valid).
    explicit DeviceFloats(std::size_t count) : count_(count) {
        harness::check(cudaMalloc(&data_, sizeof(float) * (count ? count : 1)), "allocate a device array");
    }
    ~DeviceFloats() { cudaFree(data_); }
    DeviceFloats(const DeviceFloats&) = delete;
    DeviceFloats& operator=(const DeviceFloats&) = delete;
    /// Takes over @p other's array.
    DeviceFloats(DeviceFloats&& other) noexcept : data_(other.data_), count_(other.count_) { other.data_ = nullptr; other.count_ = 0; }
    /// Frees the own array and takes over @p other's.
    DeviceFloats& operator=(DeviceFloats&& other) noexcept {
        if (this != &other) {
            cudaFree(data_);
            data_ = other.data_;
            count_ = other.count_;
            other.data_ = nullptr;
            other.count_ = 0;
        }
        return *this;
    }
    /// The device pointer.
    float* get() const { return data_; }
    /// How many floats.
    std::size_t size() const { return count_; }
    /// Copies @p host to the front of the array on @p stream and waits.
    void upload(const std::vector<float>& host, cudaStream_t stream) {
        harness::check(cudaMemcpyAsync(data_, host.data(), sizeof(float) * host.size(), cudaMemcpyHostToDevice, stream),
                       "upload an array");
        harness::check(cudaStreamSynchronize(stream), "wait for an upload");
    }
    /// The first @p count values, after everything on @p stream finished.
    std::vector<float> download(std::size_t count, cudaStream_t stream) const {
        std::vector<float> host(count);
        harness::check(cudaMemcpyAsync(host.data(), data_, sizeof(float) * count, cudaMemcpyDeviceToHost, stream),
                       "download an array");
        harness::check(cudaStreamSynchronize(stream), "wait for a download");
        return host;
    }

private:
    float* data_ = nullptr;
    std::size_t count_ = 0;
};

/// A device array holding a copy of @p host.
inline DeviceFloats uploaded(const std::vector<float>& host, cudaStream_t stream) {
    DeviceFloats d(host.size());
    d.upload(host, stream);
    return d;
}

}  // namespace munch::gpu
