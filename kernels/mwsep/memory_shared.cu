/// @file memory_shared.cu
/// @brief Stream constants copied into shared memory per block: the thesis's final version
/// (section 4.4.1, Table 4.2 "Shared", Appendix A).
///
/// Changed relative to memory_global.cu: at the start of the kernel the block's threads copy the 6 x S
/// values from global into shared memory, and the innermost loop reads them from there. The original
/// kernel had no barrier after the copy, so a warp could read constants another warp had not yet
/// written (a race that gave wrong stream integrals on modern GPUs). This view synchronises the block
/// after the copy; the race-free version costs nothing measurable.
#include "integral.cuh"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

// [memory-shared-begin]
/// Policy: stream constants staged in shared memory.
struct SharedMemory : FromDeviceArray {
    static constexpr const char* name = "shared";  ///< memory part of the variant name
    /// Values of the stream table this policy stages in shared memory.
    static constexpr int shared_values = stream_table_size;
    /// Copies the table into shared memory (all threads help), then reads from there.
    template <class Real>
    struct View {
        const Real* table;  ///< the block's copy in shared memory
        /// Copies @p count values of the device array into @p shared, then synchronises the block.
        __device__ View(const StreamArgs<Real>& a, Real* shared, int count) : table(shared) {
            for (int i = threadIdx.x; i < count; i += blockDim.x) shared[i] = a.global[i];
            __syncthreads();  // the barrier the 2010 kernel lacked
        }
        __device__ Real operator()(int i) const { return table[i]; }  ///< value i: stream i / 6, component i % 6
    };
};
// [memory-shared-end]

}  // namespace kernels

/// Adds the eight variants of the shared-memory family (the 2 x 2 x 2 product of its other axes); declared from
/// memory_families.def.
void add_shared_variants(std::vector<ThesisVariant>& out) { kernels::add_memory_family<kernels::SharedMemory>(out); }

}  // namespace mwsep::cuda
