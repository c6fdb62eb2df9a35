/// @file rc5.cuh
/// @brief The RC5-72 key search: every thread tests keys of the range (key schedule and one encryption of
/// the known plaintext each, rc5_math.hpp), with the rotation as the policy: shifts and an OR (the G80,
/// which had no rotate) or Hopper's funnel shift.
#pragma once

#include <cstdint>

#include "ryoo/rc5_math.hpp"

namespace ryoo::kernels {

/// Threads per block of the search.
inline constexpr int rc5_block = 256;

/// Tests the keys base + first + t for t < count; a match lowers *first_found (atomicMin) and raises *matches.
template <class Rotate>
__global__ void __launch_bounds__(rc5_block) ryoo_rc5_search(std::uint64_t base_lo, std::uint32_t base_hi, std::uint32_t p0,
                                                             std::uint32_t p1, std::uint32_t c0, std::uint32_t c1,
                                                             std::uint64_t first, std::uint64_t count,
                                                             unsigned long long* first_found, unsigned long long* matches) {
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < count; t += stride) {
        const std::uint64_t index = first + t;
        if (rc5_72_matches<Rotate>(base_lo, base_hi, index, p0, p1, c0, c1)) {
            atomicMin(first_found, static_cast<unsigned long long>(index));
            atomicAdd(matches, 1ull);
        }
    }
}

}  // namespace ryoo::kernels
