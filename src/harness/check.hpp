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

/// What a CUDA error means where several processes share a device, for the message (empty otherwise).
inline const char* shared_device_hint(cudaError_t status) {
    switch (status) {
        case cudaErrorDevicesUnavailable:
            return "; the device takes no further process now (exclusive-process or prohibited compute mode, see "
                   "`nvidia-smi -q -d COMPUTE`): run one process at a time on it, or choose another device";
        case cudaErrorMemoryAllocation:
            return "; the memory ran out (on a GPU shared with other processes, they may have taken it after this "
                   "one checked what was free)";
        default:
            return "";
    }
}

/// No GPU can be used on this machine (no driver, no device, a driver too old for the runtime).
class NoGpu : public CudaError {
public:
    using CudaError::CudaError;
};

/// Why no GPU can be used, in the words every program uses, when @p status (of the first CUDA call) says
/// so; empty for any other status. No driver at all is told apart from an old one, so that a machine
/// without a GPU is not sent to upgrade a driver it does not have.
inline std::string no_gpu_reason(cudaError_t status) {
    if (status == cudaErrorNoDevice) return "this machine has no CUDA GPU (the NVIDIA driver found none)";
    if (status == cudaErrorInsufficientDriver || status == cudaErrorNotSupported || status == cudaErrorSystemNotReady ||
        status == cudaErrorCompatNotSupportedOnDevice) {
        int driver = 0, runtime = 0;
        (void)cudaDriverGetVersion(&driver);
        (void)cudaRuntimeGetVersion(&runtime);
        if (driver == 0) return "no NVIDIA driver is installed on this machine, so no GPU can be used";
        if (status == cudaErrorInsufficientDriver)
            return "the NVIDIA driver supports CUDA " + std::to_string(driver / 1000) + "." +
                   std::to_string(driver % 1000 / 10) + ", older than the CUDA " + std::to_string(runtime / 1000) + "." +
                   std::to_string(runtime % 1000 / 10) + " this build uses: install a newer driver";
        return std::string("the NVIDIA driver cannot run CUDA here (") + cudaGetErrorName(status) + ")";
    }
    return {};
}

/// Throws CudaError if @p status is not cudaSuccess; NoGpu, worded by no_gpu_reason(), when no GPU can be used.
inline void check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return;
    if (const std::string reason = no_gpu_reason(status); !reason.empty())
        throw NoGpu("needs a CUDA GPU: " + reason);
    throw CudaError(std::string("CUDA error while trying to ") + what + ": " + cudaGetErrorName(status) + " (" +
                    cudaGetErrorString(status) + ")" + shared_device_hint(status));
}

/// Throws NoGpu (worded as check() words it) unless this machine has a CUDA GPU the build can use.
inline void require_gpu() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count == 0) throw NoGpu("needs a CUDA GPU: " + no_gpu_reason(cudaErrorNoDevice));
    check(status, "count the CUDA devices");
}

/// Whether this machine has a CUDA GPU the build can use (no exception; clears the error it may leave).
inline bool have_gpu() {
    int count = 0;
    const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    if (!ok) (void)cudaGetLastError();
    return ok;
}

/// Makes @p device the calling thread's device unless it already is. cudaSetDevice() always makes the
/// device's primary context current, which would silently end a green context (GreenContext) that the
/// caller set up on the same device; selecting only on a change keeps it.
inline void use_device(int device, const char* what = "select the device") {
    int current = -1;
    check(cudaGetDevice(&current), "read the current device");
    if (current != device) check(cudaSetDevice(device), what);
}

/// use_device() for destructors: never throws; a failure leaves the current device as it was.
inline void use_device_quietly(int device) noexcept {
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current != device) cudaSetDevice(device);
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
