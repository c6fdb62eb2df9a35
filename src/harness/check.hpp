/// @file check.hpp
/// @brief Every CUDA call goes through check(): a failure becomes a CudaError naming the call.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace harness {

/// A CUDA failure: what was being done and the runtime's own message.
class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Throws CudaError if @p status is not cudaSuccess.
inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw CudaError(std::string("CUDA error while trying to ") + what + ": " + cudaGetErrorName(status) + " (" +
                        cudaGetErrorString(status) + ")");
}

/// A CUDA event that is destroyed with its owner, also when an exception unwinds the stack.
class Event {
public:
    Event() { check(cudaEventCreate(&event_), "create an event"); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    /// Records the event on the CUDA stream @p queue.
    void record(cudaStream_t queue) { check(cudaEventRecord(event_, queue), "record an event"); }
    /// Milliseconds from @p start to this event (both recorded and completed).
    float since(const Event& start) const {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start.event_, event_), "time between events");
        return ms;
    }

private:
    cudaEvent_t event_{};
};

/// A CUDA stream that is destroyed with its owner.
class Stream {
public:
    Stream() { check(cudaStreamCreate(&stream_), "create a stream"); }
    ~Stream() { cudaStreamDestroy(stream_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    /// The stream handle.
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_{};
};

}  // namespace harness
