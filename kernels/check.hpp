/// @file check.hpp
/// @brief Every CUDA call goes through check(): a failure becomes a CudaError naming the call.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace mwsep::cuda {

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

}  // namespace mwsep::cuda
