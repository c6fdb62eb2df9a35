/// @file matmul.hpp
/// @brief The thesis's chapter 3 on the GPU: the CUDA SDK's tiled shared-memory product (its Algorithm 3,
/// tiles of 16 x 16) and cuBLAS SGEMM in FP32 arithmetic (no TF32), on square row-major float matrices.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/device_budget.hpp"

namespace munch::gpu {

/// The GPU matrix products of the study.
enum class MatmulKind {
    sdk,     ///< the SDK-style kernel: a 16 x 16 block per 16 x 16 tile of C, A and B staged through shared memory
    cublas,  ///< cublasGemmEx with FP32 inputs, output and compute type (CUBLAS_COMPUTE_32F: never TF32)
};

/// The name of @p kind as the `munch matmul` command and the result files spell it.
std::string matmul_name(MatmulKind kind);

/// What a DeviceMatmul of order @p n allocates: A, B and C, n x n floats each (cuBLAS's handle and workspace
/// are the library's own, within the check's reserve). DeviceMatmul checks it before it allocates.
harness::DevicePlan matmul_plan(std::size_t n);

/// One GPU product of n x n matrices: its device arrays (A, B, C) and, for cuBLAS, its library handle.
class DeviceMatmul {
public:
    /// Allocates the three arrays of @p n x @p n floats (and creates the cuBLAS handle for MatmulKind::cublas).
    DeviceMatmul(MatmulKind kind, std::size_t n);
    ~DeviceMatmul();
    DeviceMatmul(const DeviceMatmul&) = delete;
    DeviceMatmul& operator=(const DeviceMatmul&) = delete;
    /// Copies A and B (n x n each, row-major) to the device on @p stream and waits.
    void upload(const std::vector<float>& a, const std::vector<float>& b, cudaStream_t stream);
    /// Enqueues C = A B on @p stream (no synchronisation).
    void run(cudaStream_t stream);
    /// C, after everything on @p stream finished.
    std::vector<float> download(cudaStream_t stream) const;

private:
    struct State;  ///< the kind, the size, the device arrays
    std::unique_ptr<State> state_;
};

/// The thesis's "GPU time with overhead" of one product: allocation of the three arrays, copies of A and
/// B from pageable host memory, the product, the copy of C back and the frees, on @p stream, the cuBLAS
/// handle (created once per process, before) reused. Returns C.
std::vector<float> matmul_with_transfers(MatmulKind kind, const std::vector<float>& a, const std::vector<float>& b,
                                        std::size_t n, cudaStream_t stream);

}  // namespace munch::gpu
