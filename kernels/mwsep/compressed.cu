/// @file compressed.cu
/// @brief The `compressed-f64` variant: a different algorithm from the exact sum of every other variant.
///
/// Every cell of an area integrates its components with the Gauss rules of the area's fixed discrete
/// line-of-sight measure (cpu/compressed_rule.hpp, built once per grid on the host), under the error
/// controller of cpu/compressed_cell.hpp: the same functions the CPU integrator calls. Three kernels:
///  1. one thread per cell runs the controller for the background and each stream, writes the accepted
///     values and estimates, and appends each (cell, component) the controller does not accept to a list;
///  2. blocks of compressed_fallback_threads threads walk that list and compute each listed pair's exact
///     sum over every point (streams with the rigorous skipping of the exact path), reduced in a fixed tree;
///  3. one block per component adds fixed chunks of cells with compensated sums (values) and plain sums
///     (estimates); the host adds the chunks in order.
/// The results do not depend on the launch shape or on the order in which the list was filled.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "block_tree.cuh"
#include "compressed_kernels.hpp"
#include "cuda_check.hpp"
#include "harness/type_name.hpp"
#include "mwsep/cpu/compressed_cell.hpp"
#include "mwsep/math/point.hpp"
#include "mwsep/math/sightline.hpp"
#include "mwsep/math/summation.hpp"

namespace mwsep::cuda {
namespace kernels {

/// Kernel arguments of one area.
struct CompressedArgs {
    CompressedArea area;                   ///< the area's device data
    double q_inv_sq;                       ///< 1 / q^2
    double r0;                             ///< core radius [kpc]
    double centre[3 * max_streams];        ///< stream centres, x y z per stream
    double axis[3 * max_streams];          ///< stream axes
    double inv_two_sigma_sq[max_streams];  ///< 1 / (2 sigma^2) per stream
};

/// The exponent of stream @p s along a cell's direction, in vertex form (the form the rules and the fallback
/// evaluate: no cancellation near the stream).
__device__ inline math::VertexQuadratic<double> stream_exponent(const CompressedArgs& a, int s, double cbcl,
                                                                double cbsl, double sinb) {
    const math::Vec3<double> c{a.centre[3 * s], a.centre[3 * s + 1], a.centre[3 * s + 2]};
    const math::Vec3<double> x{a.axis[3 * s], a.axis[3 * s + 1], a.axis[3 * s + 2]};
    return math::stream_exponent_vertex(cbcl, cbsl, sinb, c, x, a.inv_two_sigma_sq[s]);
}

/// The same exponent as the expanded quadratic, for the rigorous skipping bound every exact path uses.
__device__ inline math::Quadratic<double> stream_exponent_bound(const CompressedArgs& a, int s, double cbcl,
                                                                double cbsl, double sinb) {
    const math::Vec3<double> c{a.centre[3 * s], a.centre[3 * s + 1], a.centre[3 * s + 2]};
    const math::Vec3<double> x{a.axis[3 * s], a.axis[3 * s + 1], a.axis[3 * s + 2]};
    return math::stream_exponent_quadratic(cbcl, cbsl, sinb, c, x, a.inv_two_sigma_sq[s]);
}

/// Stream @p s's skip threshold: the device's, where it computed them, else the host's.
__device__ inline double skip_threshold(const CompressedArea& area, int s) {
    return area.device_threshold ? area.device_threshold[s] : area.threshold[s];
}

/// Appends (cell @p p, component @p c) to the fallback list.
__device__ inline void append_fallback(const CompressedArea& area, int p, int c) {
    const unsigned at = atomicAdd(&area.counters[0], 1u);
    area.worklist[2 * at] = p;
    area.worklist[2 * at + 1] = c;
    atomicAdd(&area.counters[1 + c], 1u);
}

// [compressed-kernel-begin]
/// Kernel 1: the controller of every component of one cell per thread.
template <int S>
__global__ void compressed_cell_kernel(CompressedArgs a) {
    const CompressedArea& area = a.area;
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= area.cells) return;
    const cpu::LadderView v = area.ladder;
    const double ids = area.ids[p % area.n_nu];
    const double cbcl = area.cosb[p] * area.cosl[p], cbsl = area.cosb[p] * area.sinl[p], sinb = area.sinb[p];
    const auto rq = math::flattened_radius_quadratic(cbcl, cbsl, sinb, a.q_inv_sq);
    const double r0 = a.r0;
    const auto bg = cpu::control(v, cpu::background_first_level(v, rq), area.tolerance, 0.0,
                                 [&](int k) { return cpu::background_rule_sum(v, k, rq, r0); });
    area.cell_out[p] = bg.value * ids;
    area.cell_estimate[p] = bg.estimate * ids;
    if (bg.level < 0) append_fallback(area, p, 0);
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const auto e = stream_exponent(a, s, cbcl, cbsl, sinb);
        const double floor = skip_threshold(area, s) * area.n_r / ids;
        const auto st = cpu::control(v, cpu::stream_first_level(v, e), area.tolerance, floor,
                                     [&](int k) { return cpu::stream_rule_sum(v, k, e); });
        const std::size_t at = static_cast<std::size_t>(1 + s) * area.padded + p;
        area.cell_out[at] = st.value * ids;
        area.cell_estimate[at] = st.estimate * ids;
        if (st.level < 0) append_fallback(area, p, 1 + s);
    }
}
// [compressed-kernel-end]

/// Kernel 2: the exact sum of every listed (cell, component), one block per pair at a time.
__global__ void __launch_bounds__(compressed_fallback_threads) compressed_fallback_kernel(CompressedArgs a) {
    const CompressedArea& area = a.area;
    __shared__ double partial[compressed_fallback_threads];
    const unsigned items = area.counters[0];
    const int t = threadIdx.x;
    for (unsigned item = blockIdx.x; item < items; item += gridDim.x) {
        const int p = area.worklist[2 * item], c = area.worklist[2 * item + 1];
        const double ids = area.ids[p % area.n_nu];
        const double cbcl = area.cosb[p] * area.cosl[p], cbsl = area.cosb[p] * area.sinl[p], sinb = area.sinb[p];
        double sum = 0;
        if (c == 0) {
            const auto rq = math::flattened_radius_quadratic(cbcl, cbsl, sinb, a.q_inv_sq);
            const int n = area.n_r * area.n_conv;
            for (int m = t; m < n; m += compressed_fallback_threads)
                sum += area.folded_w[m] / math::hernquist_denominator(sqrt(rq(area.folded_r[m])), a.r0);
        } else {
            const auto e = stream_exponent(a, c - 1, cbcl, cbsl, sinb);
            const auto bound = stream_exponent_bound(a, c - 1, cbcl, cbsl, sinb);
            const double threshold = skip_threshold(area, c - 1);
            for (int k = t; k < area.n_r; k += compressed_fallback_threads) {
                if (!math::stream_bin_needed(ids, area.block_weight[k], bound, area.block_r_min[k], area.block_r_max[k],
                                             threshold))
                    continue;
                const int first = k * area.n_conv;
                for (int m = first; m < first + area.n_conv; ++m)
                    sum += area.folded_w[m] * math::stream_term_exp(e(area.folded_r[m]));
            }
        }
        partial[t] = sum;
        block_tree<compressed_fallback_threads>(partial, [](double x, double y) { return x + y; });
        if (t == 0) area.cell_out[static_cast<std::size_t>(c) * area.padded + p] = partial[0] * ids;
        __syncthreads();
    }
}

/// Kernel 3: block c adds component c's cells in compressed_chunks fixed chunks (thread i: chunk i).
__global__ void __launch_bounds__(compressed_chunks) compressed_reduce_kernel(CompressedArea area) {
    const int i = threadIdx.x;
    const double* values = area.cell_out + static_cast<std::size_t>(blockIdx.x) * area.padded;
    const double* estimates = area.cell_estimate + static_cast<std::size_t>(blockIdx.x) * area.padded;
    const int chunk = (area.cells + compressed_chunks - 1) / compressed_chunks;
    const int first = i * chunk;
    const int last = min(area.cells, first + chunk);
    math::NeumaierSum sum;
    double estimate = 0;
    for (int p = first; p < last; ++p) {
        sum.add(values[p]);
        estimate += estimates[p];
    }
    double* out = area.partials + (static_cast<std::size_t>(blockIdx.x) * compressed_chunks + i) * 3;
    out[0] = sum.running_sum();
    out[1] = sum.compensation();
    out[2] = estimate;
}

/// A candidate cell of the thresholds' search: its line-of-sight bound and its index.
struct BoundAt {
    double bound;  ///< ids x weight_sum x stream_term_bound() of the cell (-1: no cell yet)
    int cell;      ///< the cell's index in the area
};

/// Whether @p b beats @p a: a larger bound, or the same bound at an earlier cell (the host's search keeps the first
/// largest); a NaN bound never beats anything.
__device__ inline bool beats(const BoundAt& b, const BoundAt& a) {
    return b.bound > a.bound || (b.bound == a.bound && b.cell < a.cell);
}

/// Reduces @p v[0 .. compressed_threshold_threads) to the best in v[0], in a fixed tree.
__device__ inline void best_of_block(BoundAt* v) {
    __syncthreads();
    for (int half = compressed_threshold_threads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half && beats(v[threadIdx.x + half], v[threadIdx.x]))
            v[threadIdx.x] = v[threadIdx.x + half];
        __syncthreads();
    }
}

/// Threshold kernel 1: block b's best cell of each stream over the cells it walks (b x threads + t, in steps of
/// the whole grid), as (bound, cell) into scratch[(s x blocks + b) x 2]. A cell's bound is the host search's,
/// ids x weight_sum x stream_term_bound() (stream_skipping.cpp), every cell computed.
__global__ void __launch_bounds__(compressed_threshold_threads) compressed_threshold_search_kernel(CompressedArgs a,
                                                                                                 int n_streams,
                                                                                                 double* scratch) {
    const CompressedArea& area = a.area;
    __shared__ BoundAt best[compressed_threshold_threads];
    for (int s = 0; s < n_streams; ++s) {
        BoundAt mine{-1.0, 0x7fffffff};
        for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < area.cells; p += gridDim.x * blockDim.x) {
            const double cbcl = area.cosb[p] * area.cosl[p], cbsl = area.cosb[p] * area.sinl[p];
            const auto e = stream_exponent_bound(a, s, cbcl, cbsl, area.sinb[p]);
            const double x = math::stream_term_bound_exponent(e, area.los_r_min, area.los_r_max);
            const BoundAt here{area.ids[p % area.n_nu] * area.los_weight_sum * math::stream_term_bound_of_exponent(x), p};
            if (beats(here, mine)) mine = here;
        }
        best[threadIdx.x] = mine;
        best_of_block(best);
        if (threadIdx.x == 0) {
            scratch[(s * gridDim.x + blockIdx.x) * 2] = best[0].bound;
            scratch[(s * gridDim.x + blockIdx.x) * 2 + 1] = static_cast<double>(best[0].cell);
        }
        __syncthreads();
    }
}

/// The best cell of stream @p s over the search blocks' results in @p scratch (none found: cell 0, as on the host),
/// reduced by the calling block's threads in @p best.
__device__ inline int best_cell(const double* scratch, int s, int search_blocks, BoundAt* best) {
    BoundAt mine{-1.0, 0x7fffffff};
    for (int b = threadIdx.x; b < search_blocks; b += blockDim.x) {
        const BoundAt there{scratch[(s * search_blocks + b) * 2], static_cast<int>(scratch[(s * search_blocks + b) * 2 + 1])};
        if (beats(there, mine)) mine = there;
    }
    best[threadIdx.x] = mine;
    best_of_block(best);
    return best[0].cell == 0x7fffffff ? 0 : best[0].cell;
}

/// Threshold kernel 2, block (s, b): stream s's best cell, then that cell's exact stream sum over part b of the line
/// of sight's points (compressed_threshold_parts equal parts; a fixed tree over the threads' strided sums) into
/// sums[s x parts + b].
__global__ void __launch_bounds__(compressed_threshold_threads) compressed_threshold_sum_kernel(CompressedArgs a,
                                                                                              int search_blocks,
                                                                                              const double* scratch,
                                                                                              double* sums) {
    const CompressedArea& area = a.area;
    const int s = blockIdx.x, part = blockIdx.y;
    __shared__ BoundAt best[compressed_threshold_threads];
    __shared__ double partial[compressed_threshold_threads];
    const int p = best_cell(scratch, s, search_blocks, best);
    const double cbcl = area.cosb[p] * area.cosl[p], cbsl = area.cosb[p] * area.sinl[p], sinb = area.sinb[p];
    const math::Vec3<double> c{a.centre[3 * s], a.centre[3 * s + 1], a.centre[3 * s + 2]};
    const math::Vec3<double> x{a.axis[3 * s], a.axis[3 * s + 1], a.axis[3 * s + 2]};
    const long long points = static_cast<long long>(area.n_r) * area.n_conv;
    const int first = static_cast<int>(points * part / gridDim.y), last = static_cast<int>(points * (part + 1) / gridDim.y);
    double sum = 0;
    for (int m = first + threadIdx.x; m < last; m += blockDim.x) {
        const auto pos = math::point_position(area.folded_r[m], cbcl, cbsl, sinb);
        sum += area.folded_w[m] * exp(-math::stream_distance_squared(pos, c, x) * a.inv_two_sigma_sq[s]);
    }
    partial[threadIdx.x] = sum;
    block_tree<compressed_threshold_threads>(partial, [](double x, double y) { return x + y; });
    if (threadIdx.x == 0) sums[s * gridDim.y + part] = partial[0];
}

/// Threshold kernel 3, block s: the parts' sums added in order, and the threshold ids x sum x 2^-60 / (cells x r bins).
__global__ void __launch_bounds__(compressed_threshold_threads) compressed_threshold_finish_kernel(
    CompressedArea area, int search_blocks, const double* scratch, const double* sums, double* thresholds) {
    __shared__ BoundAt best[compressed_threshold_threads];
    const int s = blockIdx.x;
    const int p = best_cell(scratch, s, search_blocks, best);
    if (threadIdx.x != 0) return;
    double exact = 0;
    for (int part = 0; part < compressed_threshold_parts; ++part) exact += sums[s * compressed_threshold_parts + part];
    thresholds[s] = ldexp(exact * area.ids[p % area.n_nu], -60) /
                    (static_cast<double>(area.cells) * static_cast<double>(area.n_r));
}

/// The cell kernel's instance for @p streams streams (nullptr if none).
template <int... Ss>
const void* compressed_kernel_for(int streams, std::integer_sequence<int, Ss...>) {
    const void* found = nullptr;
    ((streams == Ss ? (found = reinterpret_cast<const void*>(&compressed_cell_kernel<Ss>)) : nullptr), ...);
    return found;
}

/// The cell kernel for a stream count (no register-capped build).
const void* compressed_kernel(int streams, bool capped) {
    return capped ? nullptr : compressed_kernel_for(streams, std::make_integer_sequence<int, max_streams + 1>{});
}

/// Its compiled identity.
std::string compressed_kernel_identity(int streams, bool capped) {
    if (!compressed_kernel(streams, capped)) return "";
    return "mwsep::cuda::kernels::compressed_cell_kernel<" + std::to_string(streams) + ">";
}

/// The kernels' arguments for @p area and the stream constants of @p streams.
CompressedArgs compressed_args(const CompressedArea& area, const TidalStreams& streams) {
    CompressedArgs a{};
    a.area = area;
    a.q_inv_sq = streams.q_inv_sq, a.r0 = streams.r0;
    streams.copy_geometry(a.centre, a.axis, a.inv_two_sigma_sq);
    return a;
}

/// Queues the three kernels of one area (cells, exact fallbacks, reduction) on @p queue.
void launch_compressed(const CompressedArea& area, const TidalStreams& streams, const LaunchOptions& opt, cudaStream_t queue) {
    CompressedArgs a = compressed_args(area, streams);
    const void* kernel = compressed_kernel(streams.count, false);
    if (!kernel) throw CudaError("no compressed kernel instance for " + std::to_string(streams.count) + " streams");
    check(cudaMemsetAsync(area.counters, 0, sizeof(unsigned) * (2 + max_streams), queue), "clear the fallback counters");
    const int threads = opt.threads_per_block;
    if (area.cells > 0) {
        void* params[] = {&a};
        check(cudaLaunchKernel(kernel, dim3((area.cells + threads - 1) / threads), dim3(threads), params, 0, queue),
              "launch the compressed cell kernel");
    }
    compressed_fallback_kernel<<<compressed_fallback_blocks, compressed_fallback_threads, 0, queue>>>(a);
    check(cudaGetLastError(), "launch the compressed fallback kernel");
    compressed_reduce_kernel<<<1 + streams.count, compressed_chunks, 0, queue>>>(area);
    check(cudaGetLastError(), "launch the compressed reduction kernel");
}

/// Queues the three threshold kernels of one area (search, the best cell's sums in parts, finish) on @p queue.
void launch_compressed_thresholds(const CompressedArea& area, const TidalStreams& streams, double* thresholds,
                                  double* scratch, cudaStream_t queue) {
    if (streams.count <= 0) return;
    if (streams.count > max_streams) throw CudaError("the compressed thresholds hold at most " + std::to_string(max_streams) + " streams");
    const CompressedArgs a = compressed_args(area, streams);
    compressed_threshold_search_kernel<<<compressed_threshold_blocks, compressed_threshold_threads, 0, queue>>>(
        a, streams.count, scratch);
    check(cudaGetLastError(), "launch the skip thresholds' search kernel");
    double* sums = scratch + 2 * compressed_threshold_blocks * max_streams;
    compressed_threshold_sum_kernel<<<dim3(streams.count, compressed_threshold_parts), compressed_threshold_threads, 0,
                                      queue>>>(a, compressed_threshold_blocks, scratch, sums);
    check(cudaGetLastError(), "launch the skip thresholds' sum kernel");
    compressed_threshold_finish_kernel<<<streams.count, compressed_threshold_threads, 0, queue>>>(
        area, compressed_threshold_blocks, scratch, sums, thresholds);
    check(cudaGetLastError(), "launch the skip thresholds' finishing kernel");
}

/// No dynamic shared memory.
std::size_t compressed_shared_bytes(int) { return 0; }

}  // namespace kernels

void add_compressed_variants(std::vector<CompressedVariant>& out) {
    CompressedVariant v;
    v.kernels.name = "compressed-f64";
    v.kernels.axes = {"compressed", "", "", "", "f64"};
    v.kernels.double_precision = true;
    v.kernels.unrolled = true;
    v.kernels.kernel = &kernels::compressed_kernel;
    v.kernels.identity = &kernels::compressed_kernel_identity;
    v.kernels.shared_bytes = &kernels::compressed_shared_bytes;
    v.launch = &kernels::launch_compressed;
    v.thresholds = &kernels::launch_compressed_thresholds;
    out.push_back(v);
}

}  // namespace mwsep::cuda
