/// @file modern.cu
/// @brief Beyond the thesis: the `modern-*` variants, designed for a current GPU rather than the GT200.
///
/// What changes relative to the thesis's kernels (integral.cuh):
///  - **Algebra.** Along a cell's line of sight every point is r u - (R_sun, 0, 0), so the flattened
///    radius squared and each stream's exponent -|d_perp|^2 / (2 sigma^2) are quadratics in r whose three
///    coefficients are computed once per cell (math/sightline.hpp). Per point two fused multiply-adds
///    replace the position, the projection onto the stream axis and the squared norm.
///  - **Exponentials.** Double precision uses math::exp_from_steps(): a 256-entry table of 2^(j/256) in
///    shared memory and a degree-4 polynomial, with the scale 256 / ln 2 folded into each stream's
///    quadratic once per cell; about half the FP64 operations of the library's exp, within 1 ulp.
///  - **Background.** 1 / (r_g (r_g + r0)^3) from the hardware's approximate reciprocal square root and
///    reciprocal, each refined by one higher-order correction (math/refine.hpp), instead of a correctly
///    rounded square root and division.
///  - **Skipping.** A stream whose terms in an r bin a rigorous bound puts below its share of 2^-60 of the
///    stream's integral is not evaluated there (likelihood/stream_skipping.hpp proves the bound; the host computes the
///    thresholds once per area).
///  - **Work decomposition.** One launch per area instead of one per r step: a thread owns one cell and
///    a contiguous piece of its n_r x n_conv points, read from one folded table in which the per-r factors
///    are already multiplied in. The pieces (modern_r_pieces()) make enough work items that the last wave
///    of blocks is a small part of the launch. A second kernel reduces fixed chunks of cells with compensated sums, and the host adds
///    the chunks in order, so the result does not depend on the launch configuration. With several GPUs
///    each gets a contiguous range of chunks (a range of mu rows) and the same chunk sums come back.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "mwsep/math/summation.hpp"
#include "modern.hpp"
#include "device_math.cuh"
#include "mwsep/math/exp_table.hpp"
#include "mwsep/math/refine.hpp"
#include "mwsep/math/sightline.hpp"
#include "harness/type_name.hpp"
#include "modern_device.cuh"
#include "modern_kernels.hpp"
#include "policies.cuh"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

/// Kernel arguments of the modern integral kernel for one area (or one device's slice of it).
template <class Real>
struct ModernArgs {
    const Real* sinb;      ///< per cell: sin b
    const Real* sinl;      ///< per cell: sin l
    const Real* cosb;      ///< per cell: cos b
    const Real* cosl;      ///< per cell: cos l
    const Real* r_point;   ///< the points of a line of sight [kpc]
    const Real* weight;    ///< their folded weights
    const Real* ids;       ///< per nu bin: sin(nu_hi) - sin(nu_lo)
    const double* block_weight;  ///< per r bin: sum of its folded weights
    const double* block_r_min;   ///< per r bin: smallest point distance
    const double* block_r_max;   ///< per r bin: largest point distance
    const math::ExpTableEntry* exp_table;  ///< the table of math::exp_from_steps() (double precision)
    math::ExpPolynomial poly;              ///< its polynomial, read from the constant bank
    int n_blocks;          ///< r bins
    int pieces;            ///< each line of sight is split into this many ranges of r bins (blockIdx.y)
    int block;             ///< points per r bin (n_conv)
    Real* cell_out;        ///< per component, piece and cell: [(c * pieces + piece) * stride + p]
    int first_cell;        ///< this launch covers the cells [first_cell, last_cell)
    int last_cell;         ///< one past this launch's last cell
    int stride;            ///< padded cell count (component stride of cell_out)
    int n_nu;              ///< nu bins
    Real q_inv_sq;         ///< 1 / q^2
    Real r0;               ///< core radius [kpc]
    double centre[3 * max_streams];     ///< stream centres, x y z per stream
    double axis[3 * max_streams];       ///< stream axes, x y z per stream
    double inv_two_sigma_sq[max_streams];  ///< 1 / (2 sigma^2) per stream
    double threshold[max_streams];    ///< skip a stream's cell whose bound is below this
};

// [modern-kernel-begin]
/// The points of one r bin of one cell, with the streams in @p Active evaluated and the others skipped.
/// Active is a compile-time bit mask, so the inner loop has no per-stream branches; the kernel picks the
/// instance once per bin.
template <class Real, int S, unsigned Active>
__device__ __forceinline__ void bin_points(const Real* rp, const Real* wp, int n, const math::Quadratic<Real>& radius,
                                           Real r0, const StreamExponent<Real> (&exponent)[S > 0 ? S : 1],
                                           const math::ExpTableEntry* table, const math::ExpPolynomial& poly,
                                           Real& bg, Real (&st)[S > 0 ? S : 1]) {
#pragma unroll 4
    for (int m = 0; m < n; ++m) {
        const Real r = __ldg(rp + m);
        const Real w = __ldg(wp + m);
        bg = fma(w, background_term(radius(r), r0), bg);
#pragma unroll
        for (int s = 0; s < S; ++s)
            if (Active & (1u << s)) st[s] = fma(w, exponent[s].term(r, table, poly), st[s]);
    }
}

/// Calls the bin_points() instance whose mask equals @p active.
template <class Real, int S, unsigned... Masks, class... Args>
__device__ __forceinline__ void bin_points_for(unsigned active, std::integer_sequence<unsigned, Masks...>,
                                               Args&&... args) {
    ((active == Masks ? (bin_points<Real, S, Masks>(args...), true) : false) || ...);
}

/// The modern integral kernel: one thread per cell and piece of its line of sight, S streams unrolled.
template <class Real, int S>
__global__ void modern_integral_kernel(ModernArgs<Real> a) {
    // The exponential's table, copied once per block into shared memory (double precision only).
    __shared__ math::ExpTableEntry table[sizeof(Real) == 8 ? math::ExpTable::size : 1];
    if constexpr (sizeof(Real) == 8) {
        for (int i = threadIdx.x; i < math::ExpTable::size; i += blockDim.x) table[i] = a.exp_table[i];
        __syncthreads();
    }
    const int p = a.first_cell + blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.last_cell) return;
    const Real sinb = a.sinb[p];
    const Real cbcl = a.cosb[p] * a.cosl[p];
    const Real cbsl = a.cosb[p] * a.sinl[p];
    const Real ids = a.ids[p % a.n_nu];
    const auto radius = math::flattened_radius_quadratic(cbcl, cbsl, sinb, a.q_inv_sq);
    StreamExponent<Real> exponent[S > 0 ? S : 1];
    bool finite = true;
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const math::Vec3<double> c{a.centre[3 * s], a.centre[3 * s + 1], a.centre[3 * s + 2]};
        const math::Vec3<double> ax{a.axis[3 * s], a.axis[3 * s + 1], a.axis[3 * s + 2]};
        const auto e = math::stream_exponent_quadratic<double>(cbcl, cbsl, sinb, c, ax, a.inv_two_sigma_sq[s]);
        exponent[s].set(e);
        finite = finite && isfinite(e.a) && isfinite(e.b) && isfinite(e.c);
    }
    Real bg = 0;
    Real st[S > 0 ? S : 1];
#pragma unroll
    for (int s = 0; s < S; ++s) st[s] = 0;
    // This thread's piece of the line of sight: a range of r bins (see modern_r_pieces()).
    const int piece = blockIdx.y;
    const int first_bin = static_cast<int>(static_cast<long long>(a.n_blocks) * piece / a.pieces);
    const int last_bin = static_cast<int>(static_cast<long long>(a.n_blocks) * (piece + 1) / a.pieces);
    for (int k = first_bin; k < last_bin; ++k) {
        // Streams whose bound over this r bin stays below the threshold are provably negligible here.
        unsigned active = 0;
#pragma unroll
        for (int s = 0; s < S; ++s)
            if (math::stream_bin_needed(double(ids), a.block_weight[k], exponent[s].natural(), a.block_r_min[k],
                                        a.block_r_max[k], a.threshold[s]))
                active |= 1u << s;
        const Real* rp = a.r_point + static_cast<size_t>(k) * a.block;
        const Real* wp = a.weight + static_cast<size_t>(k) * a.block;
        bin_points_for<Real, S>(active, std::make_integer_sequence<unsigned, 1u << S>{}, rp, wp, a.block, radius,
                                a.r0, exponent, table, a.poly, bg, st);
    }
    // The exponential assumes finite arguments; a non-finite coefficient (impossible from validated
    // inputs) poisons the cell instead of disappearing.
    const Real poison = finite ? Real(1) : Real(NAN);
    a.cell_out[static_cast<size_t>(piece) * a.stride + p] = bg * ids * poison;
#pragma unroll
    for (int s = 0; s < S; ++s)
        a.cell_out[(static_cast<size_t>(1 + s) * a.pieces + piece) * a.stride + p] = st[s] * ids * poison;
}
// [modern-kernel-end]

/// Threads per block of the reduction: component c's reduction_chunks chunks spread over
/// reduction_chunks / reduce_threads blocks (grid (1 + S, reduction_chunks / reduce_threads)), so that many SMs
/// take part.
inline constexpr int reduce_threads = 128;
/// Values one thread of the reduction loads before it adds them, so that many loads are in flight at once.
inline constexpr int reduce_batch = 16;
static_assert(reduction_chunks % reduce_threads == 0);

/// Deterministic reduction of one component's cells (blockIdx.x is the component): chunk i of
/// reduction_chunks chunks of consecutive cells (every piece of each cell, in order) is summed with
/// Neumaier compensation by one thread, which writes the sum and its compensation; the host adds the chunks
/// in order. The thread loads reduce_batch values before adding them one by one, in the same order, so the
/// sums are those of adding each value as it is read (test GpuModernReduction). Only the chunks
/// [first_chunk, last_chunk) of this launch's slice are written (an empty chunk past the last cell as 0).
template <class Real>
__global__ void __launch_bounds__(reduce_threads)
    modern_reduce_kernel(const Real* cell_out, int cells, int pieces, int first_chunk, int last_chunk, int stride,
                         double* partials) {
    const int i = blockIdx.y * blockDim.x + threadIdx.x;
    if (i < first_chunk || i >= last_chunk) return;
    const Real* values = cell_out + static_cast<size_t>(blockIdx.x) * pieces * stride;
    const int chunk = chunk_cells(cells);
    const int first = i * chunk;
    const int last = min(cells, first + chunk);
    const int n = last > first ? (last - first) * pieces : 0;
    math::NeumaierSum sum;
    int p = first, piece = 0;  // the next value to load: cell p's piece
    for (int k0 = 0; k0 < n; k0 += reduce_batch) {
        double v[reduce_batch];
#pragma unroll
        for (int j = 0; j < reduce_batch; ++j)
            if (k0 + j < n) {
                v[j] = static_cast<double>(values[static_cast<size_t>(piece) * stride + p]);
                if (++piece == pieces) piece = 0, ++p;
            }
#pragma unroll
        for (int j = 0; j < reduce_batch; ++j)
            if (k0 + j < n) sum.add(v[j]);
    }
    double* out = partials + (static_cast<size_t>(blockIdx.x) * reduction_chunks + i) * 2;
    out[0] = sum.running_sum();
    out[1] = sum.compensation();
}

/// The kernel instance for @p streams streams.
template <class Real, int... Ss>
const void* modern_kernel_for(int streams, std::integer_sequence<int, Ss...>) {
    const void* found = nullptr;
    ((streams == Ss ? (found = reinterpret_cast<const void*>(&modern_integral_kernel<Real, Ss>)) : nullptr), ...);
    return found;
}

/// Kernel lookup for the registry (there is no register-capped build).
template <class Real>
const void* modern_kernel(int streams, bool capped) {
    return capped ? nullptr : modern_kernel_for<Real>(streams, std::make_integer_sequence<int, max_streams + 1>{});
}

/// The modern kernel's qualified name, as the compiler's report spells it.
inline constexpr const char* modern_kernel_name = "mwsep::cuda::kernels::modern_integral_kernel";

/// The compiled identity of the kernel modern_kernel<Real>() returns; empty where there is no instance.
template <class Real>
std::string modern_kernel_identity(int streams, bool capped) {
    if (!modern_kernel<Real>(streams, capped)) return "";
    return std::string(modern_kernel_name) + "<" + harness::type_name<Real>() + ", " + std::to_string(streams) + ">";
}

/// Queues the reduction of one area slice's per-cell results (precision Real) into its chunk sums.
template <class Real>
void reduce_chunks(const ModernArea& area, int streams, cudaStream_t queue) {
    modern_reduce_kernel<Real><<<dim3(1 + streams, reduction_chunks / reduce_threads), reduce_threads, 0, queue>>>(
        area.buffers<Real>().cell_out, area.cells, area.r_pieces, area.first_chunk, area.last_chunk, area.padded,
        area.partials);
    check(cudaGetLastError(), "launch the modern reduction kernel");
}

/// Launches one area's slice: the integral kernel over its cells, then the reduction of its chunks into
/// area.partials. No host synchronisation.
template <class Real>
void launch_modern(const ModernArea& area, const TidalStreams& streams, const LaunchOptions& opt, cudaStream_t queue) {
    const auto& b = area.buffers<Real>();
    ModernArgs<Real> a{};
    a.sinb = b.sinb, a.sinl = b.sinl, a.cosb = b.cosb, a.cosl = b.cosl;
    a.r_point = b.folded_r, a.weight = b.folded_w, a.ids = b.ids, a.cell_out = b.cell_out;
    a.block_weight = area.block_weight, a.block_r_min = area.block_r_min, a.block_r_max = area.block_r_max;
    a.exp_table = area.exp_table;
    a.n_blocks = area.n_r, a.block = area.n_conv, a.pieces = area.r_pieces;
    a.first_cell = area.first_cell(), a.last_cell = area.last_cell();
    a.stride = area.padded, a.n_nu = area.n_nu;
    a.q_inv_sq = Real(streams.q_inv_sq), a.r0 = Real(streams.r0);
    streams.copy_geometry(a.centre, a.axis, a.inv_two_sigma_sq);
    for (int s = 0; s < streams.count; ++s) a.threshold[s] = area.skip_threshold[s];
    const void* kernel = modern_kernel<Real>(streams.count, false);
    if (!kernel) throw CudaError("no modern kernel instance for " + std::to_string(streams.count) + " streams");
    const int threads = opt.threads_per_block;
    if (a.last_cell > a.first_cell) {
        const int blocks = (a.last_cell - a.first_cell + threads - 1) / threads;
        void* params[] = {&a};
        check(cudaLaunchKernel(kernel, dim3(blocks, a.pieces), dim3(threads), params, 0, queue),
              "launch the modern integral kernel");
    }
    reduce_chunks<Real>(area, streams.count, queue);
}

/// No dynamic shared memory.
inline size_t modern_shared_bytes(int) { return 0; }

/// The registry entry of one modern variant.
template <class Real>
ModernVariant describe_modern() {
    ModernVariant info;
    info.kernels.axes = {"modern", "", "", "", PrecisionName<Real>::name};
    info.kernels.name = std::string("modern-") + PrecisionName<Real>::name;
    info.kernels.double_precision = sizeof(Real) == 8;
    info.kernels.unrolled = true;
    info.kernels.kernel = &modern_kernel<Real>;
    info.kernels.identity = &modern_kernel_identity<Real>;
    info.kernels.shared_bytes = &modern_shared_bytes;
    info.launch = &launch_modern<Real>;
    return info;
}

/// Spreads sample i over 2^-30 .. 2^30 with a pseudo-random mantissa (a fixed integer hash: reproducible).
__device__ double seed_sample(unsigned i) {
    unsigned h = i * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const double mantissa = 1.0 + h / 4294967296.0;
    return ldexp(mantissa, static_cast<int>(i % 61u) - 30);
}

/// Largest relative errors of the seeds over the samples, as the bits of non-negative doubles (which order
/// like the numbers), by atomic maximum.
__global__ void seed_error_kernel(int samples, unsigned long long* worst) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= samples) return;
    const double x = seed_sample(static_cast<unsigned>(i));
    const double e_rsqrt = fabs(rsqrt_seed(x) * sqrt(x) - 1.0);
    const double e_rcp = fabs(reciprocal_seed(x) * x - 1.0);
    atomicMax(&worst[0], static_cast<unsigned long long>(__double_as_longlong(e_rsqrt)));
    atomicMax(&worst[1], static_cast<unsigned long long>(__double_as_longlong(e_rcp)));
}

}  // namespace kernels

SeedErrors measure_seed_errors(int samples) {
    DeviceMemory mem;
    auto* worst = mem.allocate<unsigned long long>(2, "allocate the seed errors");
    check(cudaMemset(worst, 0, 2 * sizeof(unsigned long long)), "clear the seed errors");
    kernels::seed_error_kernel<<<(samples + 255) / 256, 256>>>(samples, worst);
    check(cudaGetLastError(), "launch the seed-error kernel");
    unsigned long long host[2] = {0, 0};
    check(cudaMemcpy(host, worst, sizeof host, cudaMemcpyDeviceToHost), "measure the seed errors");
    SeedErrors out;
    std::memcpy(&out.rsqrt, &host[0], sizeof(double));
    std::memcpy(&out.reciprocal, &host[1], sizeof(double));
    return out;
}

void launch_modern_reduction(const ModernArea& area, int streams, cudaStream_t queue) {
    kernels::reduce_chunks<double>(area, streams, queue);
}

void add_modern_variants(std::vector<ModernVariant>& out) {
    out.push_back(kernels::describe_modern<double>());
    out.push_back(kernels::describe_modern<float>());
    add_lean_variants(out);
}

}  // namespace mwsep::cuda
