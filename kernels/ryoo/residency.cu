#include "ryoo/residency.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/check.hpp"

namespace ryoo {

std::size_t residency_ballast(const void* kernel, int threads_per_block, int blocks_per_sm) {
    if (blocks_per_sm == 0) return 0;
    using harness::check;
    int device = 0, per_sm = 0, reserved = 0, optin = 0;
    check(cudaGetDevice(&device), "read the current device");
    check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device), "query shared memory per SM");
    check(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device), "query reserved shared memory");
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "query shared memory per block");
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, kernel), "read the kernel's attributes");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
          "ask for the largest shared-memory carveout");
// [ballast-begin]
    const long long static_smem = static_cast<long long>(attributes.sharedSizeBytes);
    long long ballast = per_sm / blocks_per_sm - reserved - static_smem;
    ballast = std::min<long long>(ballast, optin - static_smem);
    // The allocation granularity may round a block's share up; step down until the count is reached.
    for (int attempt = 0; attempt < 64 && ballast > 0; ++attempt, ballast -= 256) {
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(ballast)),
              "raise the dynamic shared-memory limit");
        int blocks = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads_per_block, static_cast<std::size_t>(ballast)),
              "compute the occupancy");
        if (blocks == blocks_per_sm) return static_cast<std::size_t>(ballast);
        if (blocks > blocks_per_sm) break;
    }
// [ballast-end]
    throw std::runtime_error("no shared-memory ballast gives exactly " + std::to_string(blocks_per_sm) +
                             " resident blocks per SM on this device");
}

}  // namespace ryoo
