/// @file lean_kernel.cuh
/// @brief The lean modern variants: modern-f64's exact per-point sum with less work around the FP64 pipe.
///
/// modern-f64 issues about two instructions per FP64 instruction: the FP64 pipe and the issue slots run out
/// together. Each policy of LeanPolicy removes one kind of non-FP64 work, and each variant adds one policy
/// to the previous, so that one run measures each change on its own:
///  - **rw**: the line of sight's (r, w) interleaved, one 16-byte load per point from a pointer walked with
///    immediate offsets, and the background's constants read from the kernel's arguments (constant bank)
///    instead of built in registers. Same operations, same bits as modern-f64.
///  - **biased**: math::exp_biased(): pre-biased table entries (the 2^k scale one shift-and-add) and a
///    clamp of k (one integer min) instead of the underflow test. Same bits as modern-f64 wherever a term
///    is above 2^-1019.
///  - **exp8**: math::exp_table8(): 1024 eight-byte entries and a degree-3 polynomial: one FP64 operation
///    fewer per stream term and half the shared-memory traffic, within about 1.5 ulp per term instead of 1.
///  - **sub4**: skipping decided per group of a quarter of a bin's points (ModernArea::group_weight), each
///    group with a quarter of the bin's threshold: the same total bound (2^-60 of each integral) with a
///    finer test, so narrow streams evaluate fewer terms.
///  - **warp**: a skip unit evaluates the streams any lane of its warp needs, so that a warp whose cells
///    disagree at a stream's edge runs one loop instead of one per mask (more terms, never fewer: the sum
///    stays within the skipping bound of modern-f64's).
///  - **uncapped**, **r48**: other launch bounds than modern-f64's 64 registers a thread (more registers,
///    or 48 for more resident warps).
///  - **staged**: each r bin's (r, w) copied once per block into shared memory, two buffers and one barrier
///    per bin, instead of every warp reading them through the L1 cache (whose misses no load in flight covers).
///  - **log**: the skip test without an exponential or a division per group: the group's largest exponent
///    (the vertex -b / 2a computed once per cell) against log(T / (2 ids W)), from logarithms computed once
///    per cell, group and launch, with a margin that keeps the decision on the safe side of the bound.
///
/// The kernel template, its launcher and its registry entry live in this header; lean.cu instantiates the
/// variants a user runs (its module stays small, so a one-shot run loads little), lean_ladder.cu the steps
/// between modern-f64 and them.
///
/// The clamp of biased and exp8 needs every argument above -2^30 table steps. A stream exponent is a
/// concave quadratic in r, lowest at an end of the line of sight, so each cell checks its ends once; a cell
/// that fails (a stream narrower than any fit box, very far away) takes a guarded loop with an explicit
/// test, so every cell is right.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "harness/type_name.hpp"
#include "modern_device.cuh"
#include "modern_kernels.hpp"
#include "mwsep/math/exp_lean.hpp"
#include "policies.cuh"

namespace mwsep::cuda {
namespace kernels {

/// The exponential a lean variant evaluates its stream terms with.
enum class LeanExp { table, biased, table8 };

/// One lean variant's policies (see the file comment): the kernel template is instantiated per policy.
template <bool Interleaved, LeanExp Exp, int Groups, bool LogTest, int MinBlocks = 4, bool WarpMask = false,
          bool Staged = false>
struct LeanPolicy {
    static constexpr bool interleaved = Interleaved;  ///< (r, w) interleaved, constants from the bank
    static constexpr LeanExp exp = Exp;              ///< the stream terms' exponential
    static constexpr int groups = Groups;            ///< skip decisions per r bin (1 or lean_groups)
    static constexpr bool log_test = LogTest;        ///< skip test by logarithms, without exp or division
    /// Blocks of lean_max_threads threads an SM must hold at once (__launch_bounds__): 4 holds a thread to
    /// 64 registers, modern-f64's count (the same occupancy: the variants then differ in their loop only);
    /// 5 to 48 registers (20 blocks of 64 threads per SM instead of 16, at the price of spills); 1 lets the
    /// compiler take more registers for fewer resident warps.
    static constexpr int min_blocks = MinBlocks;
    /// The streams a skip unit evaluates are those any lane of the warp needs (one loop per warp and unit
    /// instead of one per distinct mask among its lanes). Evaluating a term that could be skipped only adds
    /// mass the bound allowed to omit: the sum stays within the same 2^-60 of modern-f64's.
    static constexpr bool warp_mask = WarpMask;
    /// Each r bin's (r, w) copied by the block into shared memory (two buffers, one barrier per bin) and read
    /// from there, instead of each thread reading them through the L1 cache.
    static constexpr bool staged = Staged;
    static_assert(!Staged || Interleaved, "the staged copy is of the interleaved table");
    /// Points per iteration of the unrolled loop: a group of a quarter bin (30 points for 120) unrolls by 2.
    static constexpr int unroll = Groups == 1 ? 4 : 2;
    /// Table steps per natural unit of the exponential.
    static constexpr double steps = Exp == LeanExp::table8 ? math::ExpTable8::steps_per_unit
                                                           : math::ExpTable::steps_per_unit;
    static_assert(Groups == 1 || Groups == lean_groups, "the groups' sums are uploaded for lean_groups only");
    static_assert(!LogTest || Groups == lean_groups, "the logarithms are uploaded per group only");
};

/// Kernel arguments of the lean integral kernel for one area (or one device's slice of it).
struct LeanArgs {
    const double* sinb;      ///< per cell: sin b
    const double* sinl;      ///< per cell: sin l
    const double* cosb;      ///< per cell: cos b
    const double* cosl;      ///< per cell: cos l
    const double* r_point;   ///< the points of a line of sight [kpc] (split layout)
    const double* weight;    ///< their folded weights (split layout)
    const double2* rw;       ///< (r, w) interleaved
    const double* ids;       ///< per nu bin: sin(nu_hi) - sin(nu_lo)
    const double* bin_weight;     ///< per skip unit (bin, or bin and group): sum of its folded weights
    const double* bin_log_weight; ///< per group: log of its weight sum (log test only)
    const double* bin_r_min;      ///< per skip unit: smallest point distance
    const double* bin_r_max;      ///< per skip unit: largest point distance
    const math::ExpTableEntry* table16;  ///< the 16-byte table (plain or pre-biased, as the policy needs)
    const double* table8;                ///< the 8-byte table of exp_table8()
    math::ExpPolynomial poly;            ///< the degree-4 polynomial of the 16-byte forms
    math::ExpPolynomial3 poly3;          ///< the degree-3 polynomial of exp_table8()
    double three_eighths;    ///< 3/8 for the background's refinement, from the constant bank
    double half;             ///< 1/2, likewise
    double one;              ///< 1, likewise
    double los_r_min;        ///< smallest distance of the line of sight
    double los_r_max;        ///< largest distance of the line of sight
    int n_blocks;            ///< r bins
    int pieces;              ///< each line of sight is split into this many ranges of r bins (blockIdx.y)
    int block;               ///< points per r bin (n_conv)
    double* cell_out;        ///< per component, piece and cell: [(c * pieces + piece) * stride + p]
    int first_cell;          ///< this launch covers the cells [first_cell, last_cell)
    int last_cell;           ///< one past this launch's last cell
    int stride;              ///< padded cell count (component stride of cell_out)
    int n_nu;                ///< nu bins
    double q_inv_sq;         ///< 1 / q^2
    double r0;               ///< core radius [kpc]
    double centre[3 * max_streams];        ///< stream centres, x y z per stream
    double axis[3 * max_streams];          ///< stream axes, x y z per stream
    double inv_two_sigma_sq[max_streams];  ///< 1 / (2 sigma^2) per stream
    double threshold[max_streams];         ///< per skip unit: skip a stream whose bound is below this
    double log_threshold[max_streams];     ///< log(threshold / 2) in table steps (log test), -inf for 0
};

/// The stream term of exponent @p x (in table steps) by the policy's exponential, valid on the lean domain
/// (every argument at or above math::lean_exp_domain, or the table form, which tests its own range).
template <class P>
__device__ __forceinline__ double lean_term(double x, const math::ExpTableEntry* t16, const double* t8,
                                            const LeanArgs& a) {
    if constexpr (P::exp == LeanExp::table) return math::exp_from_steps(x, t16, a.poly);
    else if constexpr (P::exp == LeanExp::biased) return math::exp_biased(x, t16, a.poly);
    else return math::exp_table8(x, t8, a.poly3);
}

/// The background term, with the refinement's constants from the arguments when the policy says so.
template <class P>
__device__ __forceinline__ double lean_background(double rg2, const LeanArgs& a) {
    if constexpr (!P::interleaved) return background_term(rg2, a.r0);
    else {
        const double y = math::rsqrt_from_seed(rg2, rsqrt_seed(rg2), a.three_eighths, a.half, a.one);
        const double rs_denominator = fma(rg2, y, a.r0);
        const double rs = math::reciprocal_from_seed(rs_denominator, reciprocal_seed(rs_denominator), a.one);
        return y * (rs * rs * rs);
    }
}

// [lean-kernel-begin]
/// The points [0, n) of one skip unit, from @p m0 on, with the streams in the compile-time mask Active.
/// Interleaved, the points come from @p rw: the unit's first point in global memory, or in the block's
/// shared copy of the bin (P::staged).
template <int S, class P, unsigned Active>
__device__ __forceinline__ void lean_points(const LeanArgs& a, const double2* rw, int m0, int n,
                                            const math::Quadratic<double>& radius,
                                            const math::Quadratic<double> (&e)[S > 0 ? S : 1],
                                            const math::ExpTableEntry* t16, const double* t8, double& bg,
                                            double (&st)[S > 0 ? S : 1]) {
    const double* rp = a.r_point + m0;
    const double* wp = a.weight + m0;
#pragma unroll(P::unroll)
    for (int m = 0; m < n; ++m) {
        double r, w;
        if constexpr (P::staged) {
            r = rw[m].x, w = rw[m].y;
        } else if constexpr (P::interleaved) {
            const double2 v = __ldg(rw + m);
            r = v.x, w = v.y;
        } else {
            r = __ldg(rp + m), w = __ldg(wp + m);
        }
        bg = fma(w, lean_background<P>(radius(r), a), bg);
#pragma unroll
        for (int s = 0; s < S; ++s)
            if (Active & (1u << s)) st[s] = fma(w, lean_term<P>(e[s](r), t16, t8, a), st[s]);
    }
}

/// The guarded loop of a cell whose exponents leave the lean domain: a run-time mask and an explicit range
/// test per term (terms below the domain are 0, as for modern-f64 below its flush threshold).
template <int S, class P>
__device__ __forceinline__ void guarded_points(const LeanArgs& a, int m0, int n, unsigned active,
                                            const math::Quadratic<double>& radius,
                                            const math::Quadratic<double> (&e)[S > 0 ? S : 1],
                                            const math::ExpTableEntry* t16, const double* t8, double& bg,
                                            double (&st)[S > 0 ? S : 1]) {
    for (int m = m0; m < m0 + n; ++m) {
        const double r = a.r_point[m], w = a.weight[m];
        bg = fma(w, lean_background<P>(radius(r), a), bg);
#pragma unroll
        for (int s = 0; s < S; ++s)
            if (active & (1u << s)) {
                const double x = e[s](r);
                st[s] = fma(w, x >= math::lean_exp_domain ? lean_term<P>(x, t16, t8, a) : 0.0, st[s]);
            }
    }
}

/// Calls the lean_points() instance whose mask equals @p active.
template <int S, class P, unsigned... Masks, class... Args>
__device__ __forceinline__ void lean_points_for(unsigned active, std::integer_sequence<unsigned, Masks...>,
                                                Args&&... args) {
    ((active == Masks ? (lean_points<S, P, Masks>(args...), true) : false) || ...);
}

/// Whether stream exponent @p e (table steps) must be evaluated on skip unit @p u, by the policy's test.
/// Both tests skip only where ids * W * 2 exp(e_max) < T, e_max the exponent's largest value on the unit's
/// range with a relative slack of 1e-9 (stream_term_bound()); the log test compares logarithms, with a
/// margin of 1e-9 (1 + |rhs|) steps against their rounding.
template <class P>
__device__ __forceinline__ bool unit_needed(const LeanArgs& a, const math::Quadratic<double>& e, double vertex,
                                            double ids, double log_ids_steps, int u, int s) {
    if constexpr (!P::log_test) {
        constexpr double to_natural = 1.0 / P::steps;
        const math::Quadratic<double> natural{e.a * to_natural, e.b * to_natural, e.c * to_natural};
        return math::stream_bin_needed(ids, a.bin_weight[u], natural, a.bin_r_min[u], a.bin_r_max[u], a.threshold[s]);
    } else {
        const double lo = a.bin_r_min[u], hi = a.bin_r_max[u];
        double best = fmax(e(lo), e(hi));
        if (e.a < 0.0) best = fmax(best, e(fmin(fmax(vertex, lo), hi)));
        best = fmin(best + fabs(best) * 1e-9, 0.0);
        const double rhs = fma(-P::steps, a.bin_log_weight[u], a.log_threshold[s] - log_ids_steps);
        return !(best < rhs - 1e-9 * (1.0 + fabs(rhs)));  // NaN: needed
    }
}

/// Launch bounds of the lean kernels: blocks of up to this many threads (LeanPolicy::min_blocks of them
/// resident per SM).
inline constexpr int lean_max_threads = 256;

/// The lean integral kernel: one thread per cell and piece of its line of sight, S streams unrolled.
template <class P, int S>
__global__ void __launch_bounds__(lean_max_threads, P::min_blocks) lean_integral_kernel(LeanArgs a) {
    // The exponential's table, copied once per block into shared memory.
    constexpr bool eight = P::exp == LeanExp::table8;
    __shared__ math::ExpTableEntry t16[eight ? 1 : math::ExpTable::size];
    __shared__ double t8[eight ? math::ExpTable8::size : 1];
    if constexpr (eight) {
        for (int i = threadIdx.x; i < math::ExpTable8::size; i += blockDim.x) t8[i] = a.table8[i];
    } else {
        for (int i = threadIdx.x; i < math::ExpTable::size; i += blockDim.x) t16[i] = a.table16[i];
    }
    __syncthreads();
    // Staged, every thread of the block takes part in the copies and barriers; a thread past the last
    // cell computes the last cell again and writes nothing.
    // Staged: two buffers of one bin's points each (2 n_conv entries), in the launch's dynamic shared memory.
    extern __shared__ __align__(16) unsigned char lean_dynamic[];
    double2* const stage = reinterpret_cast<double2*>(lean_dynamic);
    const int cell = a.first_cell + blockIdx.x * blockDim.x + threadIdx.x;
    if (!P::staged && cell >= a.last_cell) return;
    const int p = cell < a.last_cell ? cell : a.last_cell - 1;
    const double sinb = a.sinb[p];
    const double cbcl = a.cosb[p] * a.cosl[p];
    const double cbsl = a.cosb[p] * a.sinl[p];
    const double ids = a.ids[p % a.n_nu];
    const double log_ids_steps = P::log_test ? log(ids) * P::steps : 0.0;
    const auto radius = math::flattened_radius_quadratic(cbcl, cbsl, sinb, a.q_inv_sq);
    math::Quadratic<double> e[S > 0 ? S : 1];
    double vertex[S > 0 ? S : 1];
    bool finite = true, lean_domain = true;
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const math::Vec3<double> c{a.centre[3 * s], a.centre[3 * s + 1], a.centre[3 * s + 2]};
        const math::Vec3<double> ax{a.axis[3 * s], a.axis[3 * s + 1], a.axis[3 * s + 2]};
        const auto n = math::stream_exponent_quadratic<double>(cbcl, cbsl, sinb, c, ax, a.inv_two_sigma_sq[s]);
        e[s] = {n.a * P::steps, n.b * P::steps, n.c * P::steps};
        vertex[s] = P::log_test && e[s].a < 0.0 ? -e[s].b / (2.0 * e[s].a) : 0.0;
        finite = finite && isfinite(n.a) && isfinite(n.b) && isfinite(n.c);
        // Concave: lowest at an end of the line of sight (checked with a margin far above the rounding).
        if constexpr (P::exp != LeanExp::table)
            lean_domain = lean_domain && fmin(e[s](a.los_r_min), e[s](a.los_r_max)) >= 0.5 * math::lean_exp_domain &&
                          e[s].a <= 0.0;
    }
    double bg = 0;
    double st[S > 0 ? S : 1];
#pragma unroll
    for (int s = 0; s < S; ++s) st[s] = 0;
    const int piece = blockIdx.y;
    const int first_bin = static_cast<int>(static_cast<long long>(a.n_blocks) * piece / a.pieces);
    const int last_bin = static_cast<int>(static_cast<long long>(a.n_blocks) * (piece + 1) / a.pieces);
    for (int k = first_bin; k < last_bin; ++k) {
        double2* bin = P::staged ? stage + (k & 1) * a.block : stage;
        if constexpr (P::staged) {
            // Buffer k & 1 was last read in bin k - 2, which every thread finished before the barrier of k - 1.
            for (int i = threadIdx.x; i < a.block; i += blockDim.x) bin[i] = __ldg(a.rw + static_cast<size_t>(k) * a.block + i);
            __syncthreads();
        }
#pragma unroll 1
        for (int g = 0; g < P::groups; ++g) {
            const int u = k * P::groups + g;
            unsigned active = 0;
#pragma unroll
            for (int s = 0; s < S; ++s)
                if (unit_needed<P>(a, e[s], vertex[s], ids, log_ids_steps, u, s)) active |= 1u << s;
            if constexpr (P::warp_mask) active = __reduce_or_sync(__activemask(), active);
            const int m0 = k * a.block + g * a.block / P::groups;
            const int n = k * a.block + (g + 1) * a.block / P::groups - m0;
            const double2* rw = P::staged ? bin + g * a.block / P::groups : a.rw + m0;
            if (lean_domain || P::exp == LeanExp::table)
                lean_points_for<S, P>(active, std::make_integer_sequence<unsigned, 1u << S>{}, a, rw, m0, n, radius,
                                      e, t16, t8, bg, st);
            else
                guarded_points<S, P>(a, m0, n, active, radius, e, t16, t8, bg, st);
        }
    }
    if (cell >= a.last_cell) return;
    // A non-finite coefficient (impossible from validated inputs) poisons the cell instead of disappearing.
    const double poison = finite ? 1.0 : NAN;
    a.cell_out[static_cast<size_t>(piece) * a.stride + p] = bg * ids * poison;
#pragma unroll
    for (int s = 0; s < S; ++s)
        a.cell_out[(static_cast<size_t>(1 + s) * a.pieces + piece) * a.stride + p] = st[s] * ids * poison;
}
// [lean-kernel-end]

/// The kernel instance of policy P for @p streams streams.
template <class P, int... Ss>
const void* lean_kernel_for(int streams, std::integer_sequence<int, Ss...>) {
    const void* found = nullptr;
    ((streams == Ss ? (found = reinterpret_cast<const void*>(&lean_integral_kernel<P, Ss>)) : nullptr), ...);
    return found;
}

/// Kernel lookup for the registry (there is no register-capped build).
template <class P>
const void* lean_kernel(int streams, bool capped) {
    return capped ? nullptr : lean_kernel_for<P>(streams, std::make_integer_sequence<int, max_streams + 1>{});
}

/// The compiled identity of lean_kernel<P>(): the demangled kernel name with its template arguments.
template <class P>
std::string lean_kernel_identity(int streams, bool capped) {
    if (!lean_kernel<P>(streams, capped)) return "";
    return "mwsep::cuda::kernels::lean_integral_kernel<" + harness::type_name<P>() + ", " + std::to_string(streams) + ">";
}

/// Launches one area's slice: the lean integral kernel over its cells, then modern-f64's reduction.
template <class P>
void launch_lean(const ModernArea& area, const TidalStreams& streams, const LaunchOptions& opt, cudaStream_t queue) {
    const auto& b = area.f64;
    LeanArgs a{};
    a.sinb = b.sinb, a.sinl = b.sinl, a.cosb = b.cosb, a.cosl = b.cosl;
    a.r_point = b.folded_r, a.weight = b.folded_w, a.rw = area.folded_rw, a.ids = b.ids, a.cell_out = b.cell_out;
    if constexpr (P::groups == 1) {
        a.bin_weight = area.block_weight, a.bin_r_min = area.block_r_min, a.bin_r_max = area.block_r_max;
    } else {
        a.bin_weight = area.group_weight, a.bin_r_min = area.group_r_min, a.bin_r_max = area.group_r_max;
    }
    a.bin_log_weight = area.group_log_weight;
    a.table16 = P::exp == LeanExp::biased ? area.exp_table_biased : area.exp_table;
    a.table8 = area.exp_table8;
    a.three_eighths = 3.0 / 8.0, a.half = 0.5, a.one = 1.0;
    a.los_r_min = area.los_r_min, a.los_r_max = area.los_r_max;
    a.n_blocks = area.n_r, a.block = area.n_conv, a.pieces = area.r_pieces;
    a.first_cell = area.first_cell(), a.last_cell = area.last_cell();
    a.stride = area.padded, a.n_nu = area.n_nu;
    a.q_inv_sq = streams.q_inv_sq, a.r0 = streams.r0;
    streams.copy_geometry(a.centre, a.axis, a.inv_two_sigma_sq);
    for (int s = 0; s < streams.count; ++s) {
        // Each of a bin's groups gets its share of the bin's threshold, so the total bound is unchanged.
        a.threshold[s] = area.skip_threshold[s] / P::groups;
        a.log_threshold[s] = a.threshold[s] > 0 ? std::log(a.threshold[s] / 2) * P::steps : -INFINITY;
    }
    if (!area.folded_rw || !area.group_weight || !area.exp_table_biased || !area.exp_table8)
        throw CudaError("the lean variants' tables were not uploaded (a double-precision area is needed)");
    const void* kernel = lean_kernel<P>(streams.count, false);
    if (!kernel) throw CudaError("no lean kernel instance for " + std::to_string(streams.count) + " streams");
    const int threads = opt.threads_per_block;
    if (threads > lean_max_threads)
        throw CudaError("the lean variants run blocks of at most " + std::to_string(lean_max_threads) + " threads, not " +
                        std::to_string(threads) + " (--threads-per-block)");
    if (a.last_cell > a.first_cell) {
        const int blocks = (a.last_cell - a.first_cell + threads - 1) / threads;
        void* params[] = {&a};
        const size_t dynamic = P::staged ? 2 * sizeof(double2) * static_cast<size_t>(area.n_conv) : 0;
        check(cudaLaunchKernel(kernel, dim3(blocks, a.pieces), dim3(threads), params, dynamic, queue),
              "launch the lean integral kernel");
    }
    launch_modern_reduction(area, streams.count, queue);
}

/// Dynamic shared memory: none; a staged variant takes two bins of points (2 n_conv 16 bytes, 3.75 KB for
/// 120 points), which depends on the unit, not on the block size, so it is not reported here.
inline size_t lean_shared_bytes(int) { return 0; }

/// The registry entry of one lean variant; its name is composed from its policies.
template <class P>
ModernVariant describe_lean() {
    ModernVariant info;
    const std::string load = P::interleaved ? "rw" : "split";
    const std::string exp = P::exp == LeanExp::table ? "table" : P::exp == LeanExp::biased ? "biased" : "exp8";
    // The skip axis: the policies beyond modern-f64's per-bin test, joined by '-'; "bins" where there are none.
    std::vector<std::string> parts;
    if (P::groups != 1) parts.emplace_back(P::log_test ? "sub4log" : "sub4");
    if (P::warp_mask) parts.emplace_back("warp");
    if (P::staged) parts.emplace_back("staged");
    if (P::min_blocks == 1) parts.emplace_back("uncapped");
    if (P::min_blocks == 5) parts.emplace_back("r48");
    std::string skip = parts.empty() ? std::string("bins") : parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i) skip.append("-").append(parts[i]);
    info.kernels.axes = {"modern", load, exp, skip, "f64"};
    std::string name = "modern";
    if (P::interleaved) name += "-rw";
    if (P::exp != LeanExp::table) name += "-" + exp;
    if (skip != "bins") name += "-" + skip;
    info.kernels.name = name + "-f64";
    info.kernels.double_precision = true;
    info.kernels.unrolled = true;
    info.kernels.kernel = &lean_kernel<P>;
    info.kernels.identity = &lean_kernel_identity<P>;
    info.kernels.shared_bytes = &lean_shared_bytes;
    info.launch = &launch_lean<P>;
    return info;
}

}  // namespace kernels
}  // namespace mwsep::cuda
