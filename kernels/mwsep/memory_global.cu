/// @file memory_global.cu
/// @brief Stream constants in global memory: the thesis's first version (section 4.4.1, Table 4.2 "Global").
///
/// Every thread reads each stream's centre and axis through an ordinary device pointer inside the
/// innermost loop. On the GT200 these loads went to uncached DRAM (the thesis measured 82 registers and
/// 12% occupancy for this kernel); on Hopper they hit the L1 cache. The neighbouring families differ only
/// in the View below: constant memory (memory_constant.cu), texture (memory_texture.cu) and a per-block
/// copy in shared memory (memory_shared.cu).
#include "integral.cuh"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

// [memory-global-begin]
/// Policy: stream constants read from a device array.
struct GlobalMemory : FromDeviceArray {
    static constexpr const char* name = "global";  ///< memory part of the variant name
    /// Values of the stream table this policy stages in shared memory.
    static constexpr int shared_values = 0;
    /// Reads constant i of the 6 x S table straight from global memory.
    template <class Real>
    struct View {
        const Real* table;  ///< the device array (StreamArgs::global)
        __device__ View(const StreamArgs<Real>& a, Real*, int) : table(a.global) {}  ///< keeps the array's address
        __device__ Real operator()(int i) const { return table[i]; }                  ///< value i: stream i / 6, component i % 6
    };
// [memory-global-end]
};

}  // namespace kernels

/// Adds the eight variants of the global-memory family (the 2 x 2 x 2 product of its other axes); declared from
/// memory_families.def.
void add_global_variants(std::vector<ThesisVariant>& out) { kernels::add_memory_family<kernels::GlobalMemory>(out); }

}  // namespace mwsep::cuda
