/// @file integral.cuh
/// @brief The one integral kernel template of the study (thesis chapter 4, Appendix A) and its host driver.
///
/// One thread per (mu, nu) cell, 64 threads per block by default, one launch per r step: each thread
/// sums the n_conv convolution points of its cell at distance bin k for the background and every stream,
/// multiplies by the cell's volume factor V'(k, nu) (efficiency x r-volume x nu-area, precomputed on the
/// host) and adds the result to the cell's accumulator in global memory. After all r steps the host sums
/// the accumulators over cells in index order (spec 3.4).
///
/// The policies of the variant decide, and only they differ between variants:
///  - `Memory`: where the stream centres and axes are read from (global, constant, texture, shared);
///  - `DivSqrt`: plain IEEE `/` and `sqrt`, or the mixed-precision scheme, in the background term;
///  - `Loop`: a runtime loop over streams with sums in shared memory, or an unrolled loop with sums in
///    registers (the stream count S becomes a template argument);
///  - `Real`: double, or float everywhere (the precision study).
/// 1/(2 sigma^2) always lives in constant memory and the convolution tables always in global memory
/// through the read-only cache, for every variant.
///
/// Include this header in exactly one translation unit per memory family: it defines the constant-memory
/// symbols that unit's kernels read.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_check.hpp"
#include "device_math.cuh"
#include "harness/type_name.hpp"
#include "policies.cuh"
#include "thesis_kernels.hpp"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

/// 1/(2 sigma^2) of each stream, for each precision (one copy per translation unit).
static __constant__ double inv_two_sigma_sq_f64[max_streams];
static __constant__ float inv_two_sigma_sq_f32[max_streams];  ///< the single-precision copy

/// 1/(2 sigma^2) of stream @p s; the unnamed first argument only picks the table of its precision.
static __device__ __forceinline__ double inv_two_sigma_sq(double, int s) { return inv_two_sigma_sq_f64[s]; }
static __device__ __forceinline__ float inv_two_sigma_sq(float, int s) { return inv_two_sigma_sq_f32[s]; }  ///< single-precision overload

/// Shared part of the policies that read the stream constants from the uploaded device array (global
/// and shared memory): nothing extra to upload, and the array's address as the kernel argument.
struct FromDeviceArray {
    static void upload(const TidalStreams&, cudaStream_t) {}  ///< nothing to do: the family uploaded the array
    /// The device array of precision Real, and no texture.
    template <class Real>
    static StreamArgs<Real> args(const TidalStreams& s) {
        if constexpr (sizeof(Real) == 8) return {s.global_f64, 0};
        else return {s.global_f32, 0};
    }
};

/// Kernel arguments of one area at one precision.
template <class Real>
struct IntegralArgs {
    const Real* sinb;     ///< per cell [padded]: sin b of the cell centre
    const Real* sinl;     ///< per cell: sin l
    const Real* cosb;     ///< per cell: cos b
    const Real* cosl;     ///< per cell: cos l
    const Real* r_point;  ///< [k * n_conv + c]
    const Real* qw;       ///< [k * n_conv + c]
    const Real* volume;   ///< V'[k * n_nu + j]
    Real* bg;             ///< per-cell background accumulator [padded]
    Real* st;             ///< per-cell stream accumulators [s * padded + p]
    Real* bg_comp;        ///< Kahan compensation of bg (single precision; never touched in double)
    Real* st_comp;        ///< Kahan compensation of st (single precision; never touched in double)
    int cells;            ///< n_mu x n_nu; threads past the last cell do no work
    int padded;           ///< cells rounded up to a multiple of 64: stride of the stream accumulators
    int n_nu;             ///< nu bins: cell p reads V' of nu bin p % n_nu
    int n_conv;           ///< convolution points per r bin
    int n_streams;        ///< stream count for the runtime loop
    int block_offset;  ///< first block of this launch (the thesis launched the cells in chunks)
    Real q_inv_sq;        ///< 1 / q^2
    Real r0;              ///< background core radius r_0 [kpc]
    StreamArgs<Real> streams;  ///< where the memory policy finds the stream centres and axes
};

// [integral-kernel-begin]
/// The work of one thread of the integral kernel: one sky cell p, one r step @p k.
/// @tparam V  the variant's policies
/// @tparam S  stream count for the unrolled loop (ignored by the runtime loop)
template <class V, int S>
__device__ __forceinline__ void integral_body(const IntegralArgs<typename V::Real>& a, int k) {
    using Real = typename V::Real;
    using Ops = typename V::DivSqrt;
    using Loop = typename V::Loop;
    const int n_streams = Loop::template streams<S>(a.n_streams);

    extern __shared__ unsigned char shared_raw[];
    Real* shared = reinterpret_cast<Real*>(shared_raw);
    // The memory policy's view of the stream constants. The shared-memory view copies them into
    // shared[0 .. 6 S) and synchronises the block before any thread reads them.
    const typename V::Memory::template View<Real> stream_const(a.streams, shared,
                                                               stream_stride * n_streams);

    const int p = (blockIdx.x + a.block_offset) * blockDim.x + threadIdx.x;
    if (p >= a.cells) return;
    const Real sinb = a.sinb[p];
    const Real cbcl = a.cosb[p] * a.cosl[p];
    const Real cbsl = a.cosb[p] * a.sinl[p];

    Real bg_sum = 0;
    // The loop policy's per-stream sums: registers (unrolled) or shared memory past the stream
    // table.
    typename Loop::template Sums<Real, S> st_sums(shared + V::Memory::shared_values, n_streams);

    const Real* r_point = a.r_point + static_cast<size_t>(k) * a.n_conv;
    const Real* qw_table = a.qw + static_cast<size_t>(k) * a.n_conv;
// [conv-loop-begin]
    for (int c = 0; c < a.n_conv; ++c) {
        const Real r = __ldg(r_point + c);
        const Real qw = __ldg(qw_table + c);
        const auto pos = math::point_position(r, cbcl, cbsl, sinb);
        const Real rg = Ops::sqrt(math::flattened_radius_squared(pos, a.q_inv_sq));
        bg_sum += Ops::div(qw, math::hernquist_denominator(rg, a.r0));
        const auto stream_term = [&](int s) {
            const math::Vec3<Real> centre{stream_const(s * stream_stride + 0),
                                          stream_const(s * stream_stride + 1),
                                          stream_const(s * stream_stride + 2)};
            const math::Vec3<Real> axis{stream_const(s * stream_stride + 3),
                                        stream_const(s * stream_stride + 4),
                                        stream_const(s * stream_stride + 5)};
            return qw * device_exp(-math::stream_distance_squared(pos, centre, axis) *
                                   inv_two_sigma_sq(Real(), s));
        };
        st_sums.add(stream_term, n_streams);
    }
// [conv-loop-end]

    const Real v = a.volume[static_cast<size_t>(k) * a.n_nu + p % a.n_nu];
    accumulate(a.bg[p], a.bg_comp[p], bg_sum * v);
    st_sums.for_each([&](int s) {
        const size_t i = static_cast<size_t>(s) * a.padded + p;
        accumulate(a.st[i], a.st_comp[i], st_sums[s] * v);
    }, n_streams);
}

/// The integral kernel of variant V for S streams: one thread per sky cell, one launch per r step
/// @p k.
template <class V, int S>
__global__ void integral_kernel(IntegralArgs<typename V::Real> a, int k) {
    integral_body<V, S>(a, k);
}
// [register-cap-begin]
/// The register-capped build: the same body under the thesis's 48-register limit
/// (`--maxrregcount 48`).
template <class V, int S>
__global__ void __maxnreg__(48) integral_kernel_capped(IntegralArgs<typename V::Real> a, int k) {
    integral_body<V, S>(a, k);
}
// [register-cap-end]
// [integral-kernel-end]

/// Address of the kernel of variant V for @p streams streams (unrolled) or any count (loop).
template <class V, int... Ss>
const void* kernel_address(int streams, bool capped, std::integer_sequence<int, Ss...>) {
    const void* found = nullptr;
    ((streams == Ss ? (found = capped ? reinterpret_cast<const void*>(&integral_kernel_capped<V, Ss>)
                                      : reinterpret_cast<const void*>(&integral_kernel<V, Ss>))
                    : nullptr),
     ...);
    return found;
}

/// Kernel of variant V for @p streams streams, register-capped if @p capped: the unrolled instance for that
/// count (nullptr outside 0 to max_streams), or the one runtime-loop instance whatever the count.
template <class V>
const void* variant_kernel(int streams, bool capped) {
    if constexpr (V::Loop::fixed_count) {
        return kernel_address<V>(streams, capped, std::make_integer_sequence<int, max_streams + 1>{});
    } else {
        return kernel_address<V>(0, capped, std::integer_sequence<int, 0>{});
    }
}

/// Dynamic shared memory of variant V per block: the staged stream table (shared-memory family) plus
/// the per-thread stream sums (runtime loop). Unrolled variants of the other families use none.
template <class V>
size_t variant_shared_bytes(int threads) {
    return sizeof(typename V::Real) *
           (V::Memory::shared_values + static_cast<size_t>(V::Loop::shared_sums) * threads);
}

/// Uploads this unit's constant tables on @p queue: 1/(2 sigma^2) of the variant's precision and whatever
/// its memory policy keeps in constant memory. The family calls it before it starts the clock, so that the
/// timed window holds the kernels alone.
template <class V>
void upload_constants(const TidalStreams& streams, cudaStream_t queue) {
    if constexpr (std::is_same_v<typename V::Real, double>) {
        check(cudaMemcpyToSymbolAsync(inv_two_sigma_sq_f64, streams.inv_two_sigma_sq_f64, sizeof(double) * max_streams,
                                      0, cudaMemcpyHostToDevice, queue),
              "upload 1/(2 sigma^2)");
    } else {
        check(cudaMemcpyToSymbolAsync(inv_two_sigma_sq_f32, streams.inv_two_sigma_sq_f32, sizeof(float) * max_streams,
                                      0, cudaMemcpyHostToDevice, queue),
              "upload 1/(2 sigma^2)");
    }
    V::Memory::upload(streams, queue);
}

/// The dynamic shared memory per block [bytes] with which exactly @p blocks blocks of @p threads threads of
/// @p kernel fit on an SM of the current device (the rest of the SM's shared memory held as ballast), at least
/// @p own (what the kernel itself uses); raises the kernel's dynamic limit and asks for the largest shared-memory
/// carveout. CudaError when the device's occupancy calculator gives another count (registers or threads allow
/// fewer blocks, or @p own leaves room for fewer).
inline size_t residency_ballast_bytes(const void* kernel, int threads, size_t own, int blocks) {
    int device = 0, per_sm = 0, reserved = 0;
    check(cudaGetDevice(&device), "read the current device");
    check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device), "read the shared memory per SM");
    check(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device), "read the reserved shared memory");
    cudaFuncAttributes a{};
    check(cudaFuncGetAttributes(&a, kernel), "read the integral kernel's attributes");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100), "ask for the largest carveout");
    const long long room = static_cast<long long>(per_sm) / blocks - reserved - static_cast<long long>(a.sharedSizeBytes);
    const size_t bytes = std::max(own, static_cast<size_t>(std::max(room, 0LL)));
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "allow the ballast's dynamic shared memory");
    int got = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, kernel, threads, bytes), "compute the resident blocks");
    if (got != blocks)
        throw CudaError("the ballast leaves room for " + std::to_string(got) + " resident blocks per SM, not the " +
                        std::to_string(blocks) + " asked for (registers, threads or the kernel's own shared memory)");
    return bytes;
}

/// Launches one area's kernels on @p queue, one launch per r step (or the thesis's chunks of
/// `blocks_per_launch` blocks), after upload_constants(). No host synchronisation.
template <class V>
void launch_area(const ThesisArea& area, const TidalStreams& streams, const LaunchOptions& opt, cudaStream_t queue) {
    using Real = typename V::Real;
    const int S = streams.count;
    const auto& buf = area.buffers<Real>();
    IntegralArgs<Real> a{buf.sinb, buf.sinl, buf.cosb, buf.cosl, buf.r_point, buf.qw, buf.volume,
                         buf.bg, buf.st, buf.bg_comp, buf.st_comp, area.cells, area.padded, area.n_nu,
                         area.n_conv, S, 0, static_cast<Real>(streams.q_inv_sq), static_cast<Real>(streams.r0),
                         V::Memory::template args<Real>(streams)};
    const void* kernel = variant_kernel<V>(S, opt.register_cap);
    if (!kernel) throw CudaError("no kernel instance of this variant for " + std::to_string(S) + " streams");
    const int threads = opt.threads_per_block;
    const int blocks = (area.cells + threads - 1) / threads;
    const int chunk = opt.blocks_per_launch > 0 ? opt.blocks_per_launch : blocks;
    const size_t own_bytes = variant_shared_bytes<V>(threads);
    const size_t shared_bytes =
        opt.blocks_per_sm > 0 ? residency_ballast_bytes(kernel, threads, own_bytes, opt.blocks_per_sm) : own_bytes;
// [launch-loop-begin]
    for (int k = 0; k < area.n_r; ++k) {
        for (int first = 0; first < blocks; first += chunk) {
            a.block_offset = first;
            void* params[] = {&a, &k};
            const int n = std::min(chunk, blocks - first);
            check(cudaLaunchKernel(kernel, dim3(n), dim3(threads), params, shared_bytes, queue), "launch integral kernel");
        }
    }
    check(cudaGetLastError(), "integral kernel launch");
// [launch-loop-end]
}

/// The kernels' qualified names, as the compiler's report spells them (the identity of an instance adds
/// its template arguments).
inline constexpr const char* integral_kernel_name = "mwsep::cuda::kernels::integral_kernel";
/// The register-capped kernel's qualified name.
inline constexpr const char* integral_kernel_capped_name = "mwsep::cuda::kernels::integral_kernel_capped";

/// The compiled identity of the kernel variant_kernel<V>() returns: the kernel template's name with V
/// spelled as the demangler spells it and the stream count; empty where there is no instance.
template <class V>
std::string variant_kernel_identity(int streams, bool capped) {
    if (!variant_kernel<V>(streams, capped)) return "";
    const int s = V::Loop::fixed_count ? streams : 0;
    return std::string(capped ? integral_kernel_capped_name : integral_kernel_name) + "<" + harness::type_name<V>() +
           ", " + std::to_string(s) + ">";
}

/// Describes variant V for the registry: its name composed from its policies, its kernels, and how to
/// upload and launch them.
template <class V>
ThesisVariant describe_variant() {
    ThesisVariant info;
    info.kernels.axes = {"thesis", V::Memory::name, DivSqrtName<typename V::DivSqrt>::name, V::Loop::name,
                         PrecisionName<typename V::Real>::name};
    const VariantAxes& a = info.kernels.axes;
    info.kernels.name = a.memory + "-" + a.divsqrt + "-" + a.loop + "-" + a.precision;
    info.kernels.double_precision = std::is_same_v<typename V::Real, double>;
    info.kernels.unrolled = V::Loop::fixed_count;
    info.kernels.kernel = &variant_kernel<V>;
    info.kernels.identity = &variant_kernel_identity<V>;
    info.kernels.shared_bytes = &variant_shared_bytes<V>;
    info.upload = &upload_constants<V>;
    info.launch = &launch_area<V>;
    return info;
}

/// The division and square root choices a memory family is crossed with (registry order: precision, then
/// division, then loop).
using DivSqrtChoices = std::tuple<math::IeeeDivSqrt, math::MixedPrecisionDivSqrt>;
/// The loop choices a memory family is crossed with.
using LoopChoices = std::tuple<RuntimeLoop, Unrolled>;
/// The precisions a memory family is crossed with.
using PrecisionChoices = std::tuple<double, float>;

/// Calls @p f with a value of each type of tuple @p Tuple, in order.
template <class Tuple, class F>
void for_each_type(F&& f) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (f(std::tuple_element_t<I, Tuple>{}), ...);
    }(std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}

// [variant-family-begin]
/// The variants of one memory family: the product of every division, loop and precision choice,
/// generated from the choice lists above (2 x 2 x 2 = 8).
template <class Memory>
void add_memory_family(std::vector<ThesisVariant>& out) {
    for_each_type<PrecisionChoices>([&](auto real) {
        for_each_type<DivSqrtChoices>([&](auto divsqrt) {
            for_each_type<LoopChoices>([&](auto loop) {
                using V = Variant<Memory, decltype(divsqrt), decltype(loop), decltype(real)>;
                out.push_back(describe_variant<V>());
            });
        });
    });
}

/// How many variants add_memory_family adds.
inline constexpr std::size_t variants_per_memory_family = std::tuple_size_v<DivSqrtChoices> *
                                                         std::tuple_size_v<LoopChoices> *
                                                         std::tuple_size_v<PrecisionChoices>;
// [variant-family-end]

}  // namespace kernels
}  // namespace mwsep::cuda
