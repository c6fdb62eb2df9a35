// What the GPU tests share: whether this machine has a CUDA device to test on.
#pragma once

#include <cuda_runtime.h>

namespace testsupport {

/// Whether a CUDA device is present. The error a failed query leaves is cleared, so that it does not
/// surface in the next CUDA call of a test.
inline bool have_gpu() {
    int n = 0;
    const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    (void)cudaGetLastError();
    return ok;
}

}  // namespace testsupport
