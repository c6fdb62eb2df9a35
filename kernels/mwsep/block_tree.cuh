/// @file block_tree.cuh
/// @brief One block's values combined in shared memory in a fixed tree: the order of the combinations, and so
/// the rounding of a sum, does not depend on timing or on the launch.
#pragma once

namespace mwsep::cuda::kernels {

/// Combines @p v[0 .. Width) into v[0]: at each level, half = Width / 2, Width / 4, ..., 1, thread t < half sets
/// v[t] = combine(v[t], v[t + half]). Every thread of a block of Width threads calls it after writing its own
/// v[threadIdx.x]; the block is synchronised before the first level and after each one.
template <int Width, class T, class Combine>
__device__ __forceinline__ void block_tree(T* v, Combine combine) {
    __syncthreads();
    for (int half = Width / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) v[threadIdx.x] = combine(v[threadIdx.x], v[threadIdx.x + half]);
        __syncthreads();
    }
}

}  // namespace mwsep::cuda::kernels
