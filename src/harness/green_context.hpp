/// @file green_context.hpp
/// @brief Runs work on a subset of the GPU's SMs through a CUDA green context (driver API), to emulate a
/// smaller GPU of the same architecture for the scaling experiment.
#pragma once

namespace harness {

/// While alive, the calling thread's current context is a green context holding at least @p sm_count SMs
/// of @p device (rounded up to the hardware's granularity); the previous context is restored afterwards.
class GreenContext {
public:
    /// Creates the green context and makes it current. Throws CudaError if @p sm_count is not in
    /// [1, the device's SM count] or the driver has no green contexts (they need CUDA 12.4 or later).
    GreenContext(int device, int sm_count);
    ~GreenContext();
    GreenContext(const GreenContext&) = delete;
    GreenContext& operator=(const GreenContext&) = delete;
    /// SMs actually granted.
    int sm_count() const { return granted_; }
    /// Whether the calling thread's current context is still this green context. A cudaSetDevice() in
    /// between makes the device's primary context current again, and the work that follows runs on every
    /// SM: a timing taken then is no emulation, so the measurement checks this after each sample.
    bool is_current() const;

private:
    void* green_ = nullptr;     ///< CUgreenCtx
    void* context_ = nullptr;   ///< the CUcontext made from it
    void* previous_ = nullptr;  ///< CUcontext current before
    int granted_ = 0;
};

}  // namespace harness
