/// @file memory_constant.cu
/// @brief Stream constants in constant memory (thesis section 4.4.1, Table 4.2 "Constant").
///
/// Changed relative to memory_global.cu: the 6 x S centre and axis values live in `__constant__` arrays,
/// uploaded before the launches of each area. All threads of a warp read the same element at the same time, which is
/// the access pattern the constant cache serves in one transaction. The thesis found this slower than
/// global memory on the GT200; on Hopper the compiler can keep such uniform values in uniform registers.
#include "integral.cuh"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

// [memory-constant-begin]
static __constant__ double stream_table_f64[stream_table_size];  ///< per stream: centre x, y, z, axis x, y, z
static __constant__ float stream_table_f32[stream_table_size];   ///< the same in single precision

/// Policy: stream constants in this translation unit's constant memory.
struct ConstantMemory {
    static constexpr const char* name = "constant";  ///< memory part of the variant name
    /// Values of the stream table this policy stages in shared memory.
    static constexpr int shared_values = 0;
    /// Copies the stream table, both precisions, into this unit's constant memory, asynchronously on @p queue.
    static void upload(const TidalStreams& s, cudaStream_t queue) {
        check(cudaMemcpyToSymbolAsync(stream_table_f64, s.host_f64, sizeof s.host_f64, 0, cudaMemcpyHostToDevice, queue),
              "upload stream constants to constant memory");
        check(cudaMemcpyToSymbolAsync(stream_table_f32, s.host_f32, sizeof s.host_f32, 0, cudaMemcpyHostToDevice, queue),
              "upload stream constants to constant memory");
    }
    /// No kernel argument: the view reads the `__constant__` symbols directly.
    template <class Real>
    static StreamArgs<Real> args(const TidalStreams&) {
        return {};
    }
    /// Reads constant i from the `__constant__` table of the view's precision.
    template <class Real>
    struct View {
        __device__ View(const StreamArgs<Real>&, Real*, int) {}  ///< nothing to set up
        /// Value @p i of the table: stream i / 6, component i % 6.
        __device__ Real operator()(int i) const {
            if constexpr (sizeof(Real) == 8) return stream_table_f64[i];
            else return stream_table_f32[i];
        }
    };
};
// [memory-constant-end]

}  // namespace kernels

/// Adds the eight variants of the constant-memory family (the 2 x 2 x 2 product of its other axes); declared from
/// memory_families.def.
void add_constant_variants(std::vector<ThesisVariant>& out) { kernels::add_memory_family<kernels::ConstantMemory>(out); }

}  // namespace mwsep::cuda
