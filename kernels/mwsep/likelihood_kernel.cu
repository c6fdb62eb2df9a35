/// @file likelihood_kernel.cu
/// @brief The likelihood kernel (thesis section 4.2.2): one thread per star.
///
/// Each thread reads its star (structure-of-arrays layout by default, so that a warp's loads coalesce;
/// the array-of-structures layout the thesis started from is kept as an option), computes the star's
/// convolution points on the fly (every star has its own distance), evaluates the background and stream
/// densities with the shared per-point formulas, and writes log10 of its mixture probability (or the
/// -238 penalty) and its densities. The host sums the per-star values in star order; a fit adds them on the
/// device instead (star_densities_kernel, which does not need the integrals and so runs beside them and reads
/// each star's convolution points from a table made once, then mixture_sum_kernel and star_total_kernel:
/// compensated, in a fixed order). Plain IEEE
/// division and square root and a runtime stream loop, as in the thesis: with the exact integral this kernel
/// takes well under 1% of an evaluation's time (with the compressed one, about half).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "block_tree.cuh"
#include "cuda_check.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/math/constants.hpp"
#include "device_math.cuh"
#include "likelihood_kernel.hpp"
#include "mwsep/math/point.hpp"
#include "tidal_streams.hpp"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

/// Most convolution points the constant tables below hold (the thesis's tables held 120).
constexpr int max_convolve = 256;
static __constant__ double gl_offset_f64[max_convolve];  ///< Delta g_k = 1.8 x_k [mag] of each node
static __constant__ double gl_weight_f64[max_convolve];  ///< Gauss-Legendre weight w_k of each node
static __constant__ float gl_offset_f32[max_convolve];   ///< Delta g_k in single precision
static __constant__ float gl_weight_f32[max_convolve];   ///< w_k in single precision

/// Arguments of the likelihood kernel, passed by value: kernel parameters sit in constant memory, where
/// the thesis kept the stream constants and the mixture weights (spec 5.4).
template <class Real>
struct StarKernelArgs {
    const Real* stars;  ///< SoA: 5 blocks of `stride` values (sin b, sin l, cos b, cos l, r); AoS: 5 per star
    int count;      ///< number of stars N
    int stride;     ///< N rounded up to a multiple of 64: length of each SoA block
    int n_conv;     ///< convolution points per star
    int n_streams;  ///< S, at most max_streams
    Real q_inv_sq;  ///< 1 / q^2
    Real r0;        ///< background core radius r_0 [kpc]
    Real centre[3 * max_streams];         ///< stream centres [kpc]: x, y, z of each stream
    Real axis[3 * max_streams];           ///< stream axes (unit vectors): x, y, z of each stream
    Real inv_two_sigma_sq[max_streams];   ///< 1 / (2 sigma_s^2) of each stream
    Real weight[1 + max_streams];         ///< W_bg, W_s: (E_c / I_c) / Sigma_E
    Real* log_probability;  ///< per star
    Real* densities;        ///< per star, 1 + S values
    /// The stars' convolution points, where a table holds them (tabulate_convolution()): point k of star n at
    /// [k x stride + n], its distance in conv_r and its weight in conv_qw; null where they are computed.
    const Real* conv_r;
    const Real* conv_qw;  ///< see conv_r
};

/// Delta g_k of node @p k; the unnamed first argument only picks the table of its precision.
__device__ __forceinline__ double gl_offset(double, int k) { return gl_offset_f64[k]; }
__device__ __forceinline__ double gl_weight(double, int k) { return gl_weight_f64[k]; }  ///< w_k of node k
__device__ __forceinline__ float gl_offset(float, int k) { return gl_offset_f32[k]; }    ///< Delta g_k, single precision
__device__ __forceinline__ float gl_weight(float, int k) { return gl_weight_f32[k]; }    ///< w_k, single precision

/// The product @p a x @p b rounded on its own: the compiler may not fuse it into a later sum.
__device__ __forceinline__ double rounded_product(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float rounded_product(float a, float b) { return __fmul_rn(a, b); }  ///< single precision
/// @p a x @p b + @p c with one rounding.
__device__ __forceinline__ double fused_multiply_add(double a, double b, double c) { return __fma_rn(a, b, c); }
/// @p a x @p b + @p c with one rounding, single precision.
__device__ __forceinline__ float fused_multiply_add(float a, float b, float c) { return __fmaf_rn(a, b, c); }

// [star-points-begin]
/// Field @p f of star @p n (sin b, sin l, cos b, cos l, r) in the layout the kernel reads.
template <class Real, bool StructureOfArrays>
__device__ __forceinline__ Real star_field(const StarKernelArgs<Real>& a, int n, int f) {
    return StructureOfArrays ? a.stars[f * a.stride + n] : a.stars[n * 5 + f];
}

/// Star @p n's convolution points, computed from its distance and the quadrature tables: point k
/// is math::convolution_point() of the star's magnitude, offset and weight k.
template <class Real, bool StructureOfArrays>
struct ComputedPoints {
    Real g_centre;  ///< the star's apparent magnitude
    /// Star @p n of @p a's stars.
    __device__ __forceinline__ ComputedPoints(const StarKernelArgs<Real>& a, int n)
        : g_centre(math::magnitude_from_distance(star_field<Real, StructureOfArrays>(a, n, 4))) {}
    /// Point @p k.
    __device__ __forceinline__ math::ConvolutionPoint<Real> operator()(int k) const {
        return math::convolution_point(g_centre, gl_offset(Real(), k), gl_weight(Real(), k));
    }
};

/// math::point_position() with fixed roundings: x fused (as the compiler fuses it anyway), y and z
/// rounded products, which it would fuse into the stream distances in one kernel and not in another
/// (points computed, or read from a table), giving them other bits.
template <class Real>
__device__ __forceinline__ math::Vec3<Real> star_point_position(Real r, Real cosb_cosl,
                                                                Real cosb_sinl, Real sinb) {
    return {fused_multiply_add(r, cosb_cosl, -Real(constants::sun_r)),
            rounded_product(r, cosb_sinl), rounded_product(r, sinb)};
}

// [star-points-end]

// [likelihood-kernel-begin]
/// Star @p n's convolved densities, the efficiency factor not yet applied (1 + S values into
/// @p dens); they depend on the model's geometry, not on the integrals. Its convolution points
/// come from @p Points (ComputedPoints, or a table of the same values).
template <class Real, bool StructureOfArrays,
          class Points = ComputedPoints<Real, StructureOfArrays>>
__device__ __forceinline__ void star_densities(const StarKernelArgs<Real>& a, int n, Real* dens) {
    const auto field = [&](int f) { return star_field<Real, StructureOfArrays>(a, n, f); };
    const Real sinb = field(0), sinl = field(1), cosb = field(2), cosl = field(3);
    const Real cbcl = cosb * cosl, cbsl = cosb * sinl;
    const Points point_of(a, n);
    for (int c = 0; c <= a.n_streams; ++c) dens[c] = Real(0);
    for (int k = 0; k < a.n_conv; ++k) {
        const math::ConvolutionPoint<Real> pt = point_of(k);
        const auto pos = star_point_position(pt.r_point, cbcl, cbsl, sinb);
        const Real rg = sqrt(math::flattened_radius_squared(pos, a.q_inv_sq));
        dens[0] += pt.qw_r3_n / math::hernquist_denominator(rg, a.r0);
#pragma unroll 1
        for (int s = 0; s < a.n_streams; ++s) {
            const math::Vec3<Real> c{a.centre[3 * s], a.centre[3 * s + 1], a.centre[3 * s + 2]};
            const math::Vec3<Real> ax{a.axis[3 * s], a.axis[3 * s + 1], a.axis[3 * s + 2]};
            dens[1 + s] += pt.qw_r3_n * device_exp(-math::stream_distance_squared(pos, c, ax) *
                                                   a.inv_two_sigma_sq[s]);
        }
    }
}

/// The mixture probability of a star of densities @p dens (efficiency not applied) and
/// efficiency factor @p efficiency: the mixture weights applied, then the efficiency.
template <class Real>
__device__ __forceinline__ Real mixture_probability(const StarKernelArgs<Real>& a, const Real* dens,
                                                    Real efficiency) {
    Real p = dens[0] * a.weight[0];
    for (int s = 0; s < a.n_streams; ++s) p += dens[1 + s] * a.weight[1 + s];
    return p * efficiency;
}

/// Star @p n's densities (into @p dens, efficiency not applied) and its mixture probability.
template <class Real, bool StructureOfArrays>
__device__ __forceinline__ Real star_probability(const StarKernelArgs<Real>& a, int n, Real* dens,
                                                 Real& efficiency) {
    star_densities<Real, StructureOfArrays>(a, n, dens);
    efficiency = math::efficiency_factor(star_field<Real, StructureOfArrays>(a, n, 4));
    return mixture_probability(a, dens, efficiency);
}

/// One thread per star: its densities, then log10 of its mixture probability.
template <class Real, bool StructureOfArrays>
__global__ void likelihood_kernel(StarKernelArgs<Real> a) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= a.count) return;
    Real dens[1 + max_streams];
    Real efficiency;
    const Real p = star_probability<Real, StructureOfArrays>(a, n, dens, efficiency);
    a.log_probability[n] = math::log10_or_penalty(p);
    for (int c = 0; c <= a.n_streams; ++c)
        a.densities[static_cast<size_t>(n) * (1 + a.n_streams) + c] = dens[c] * efficiency;
}
// [likelihood-kernel-end]

/// Star @p n's convolution points read from the table tabulate_convolution() made with ComputedPoints: the same
/// values, without the power and the exponential each point costs.
template <class Real>
struct TabulatedPoints {
    const Real* r;   ///< the star's first point's distance; point k is k x stride further
    const Real* qw;  ///< its weight, likewise
    int stride;      ///< the table's stride
    /// Star @p n of @p a's stars.
    __device__ __forceinline__ TabulatedPoints(const StarKernelArgs<Real>& a, int n)
        : r(a.conv_r + n), qw(a.conv_qw + n), stride(a.stride) {}
    /// Point @p k.
    __device__ __forceinline__ math::ConvolutionPoint<Real> operator()(int k) const {
        const std::size_t at = static_cast<std::size_t>(k) * stride;
        return {r[at], qw[at]};
    }
};

/// Threads of a block of the likelihood kernels (fixed: the device star sum's order depends on it).
constexpr int star_threads = star_sum_block;
/// Threads of the block that adds the star sum's block parts (fixed, for the same reason).
constexpr int star_total_threads = 256;

/// @p into plus @p part: the two running sums added with the rounding error of the addition kept exactly
/// (Knuth's two-sum, no multiplication, so nothing for the compiler to fuse), the compensations added, the
/// counts added, and the first non-finite star the smaller of the two.
__device__ __forceinline__ void merge(StarSumPart& into, const StarSumPart& part) {
    const double s = into.sum + part.sum;
    const double b = s - into.sum;
    const double rounding = (into.sum - (s - b)) + (part.sum - b);
    into.compensation += part.compensation + rounding;
    into.sum = s;
    into.zero_stars += part.zero_stars;
    into.non_finite_stars += part.non_finite_stars;
    into.first_non_finite = min(into.first_non_finite, part.first_non_finite);
}

/// The part of no star.
__device__ __forceinline__ StarSumPart empty_part() { return StarSumPart{0.0, 0.0, 0, 0, star_none}; }

/// @p a plus @p b (merge()), for block_tree.
__device__ __forceinline__ StarSumPart merged(StarSumPart a, const StarSumPart& b) {
    merge(a, b);
    return a;
}

/// The device star sum's first kernel: star n's densities (star_densities(), the efficiency not applied, the
/// convolution points computed or read from the table as @p Tabulated says) into @p out[c x count + n],
/// component by component. They do not depend on the integrals, so a fit queues this kernel beside the
/// integral's kernels.
template <class Real, bool StructureOfArrays, bool Tabulated>
__global__ void __launch_bounds__(star_threads) star_densities_kernel(StarKernelArgs<Real> a, Real* out) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= a.count) return;
    using Points = std::conditional_t<Tabulated, TabulatedPoints<Real>, ComputedPoints<Real, StructureOfArrays>>;
    Real dens[1 + max_streams];
    star_densities<Real, StructureOfArrays, Points>(a, n, dens);
    for (int c = 0; c <= a.n_streams; ++c) out[static_cast<size_t>(c) * a.count + n] = dens[c];
}

/// The convolution table's kernel: star n's points (ComputedPoints, as star_densities() computes them) into
/// @p r and @p qw at [k x stride + n].
template <class Real, bool StructureOfArrays>
__global__ void __launch_bounds__(star_threads) convolution_table_kernel(StarKernelArgs<Real> a, Real* r, Real* qw) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= a.count) return;
    const ComputedPoints<Real, StructureOfArrays> point_of(a, n);
    for (int k = 0; k < a.n_conv; ++k) {
        const math::ConvolutionPoint<Real> pt = point_of(k);
        const std::size_t at = static_cast<std::size_t>(k) * a.stride + n;
        r[at] = pt.r_point;
        qw[at] = pt.qw_r3_n;
    }
}

/// The device star sum's second kernel: each star's log-probability from its densities @p dens
/// (star_densities_kernel()'s layout) as likelihood_kernel computes it (mixture_probability(), the same
/// operations in the same order), added on the device. Block b writes the compensated sum of its stars (a fixed
/// tree over its threads) to parts[b].
template <class Real, bool StructureOfArrays>
__global__ void __launch_bounds__(star_threads) mixture_sum_kernel(StarKernelArgs<Real> a, const Real* dens,
                                                                   StarSumPart* parts) {
    __shared__ StarSumPart block[star_threads];
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    StarSumPart mine = empty_part();
    if (n < a.count) {
        Real mine_dens[1 + max_streams];
        for (int c = 0; c <= a.n_streams; ++c) mine_dens[c] = dens[static_cast<size_t>(c) * a.count + n];
        const Real efficiency = math::efficiency_factor(star_field<Real, StructureOfArrays>(a, n, 4));
        const Real p = mixture_probability(a, mine_dens, efficiency);
        const double log_probability = static_cast<double>(math::log10_or_penalty(p));
        mine.sum = log_probability;
        mine.zero_stars = log_probability == constants::zero_probability_penalty;
        if (!isfinite(log_probability)) mine.non_finite_stars = 1, mine.first_non_finite = n;
    }
    block[threadIdx.x] = mine;
    block_tree<star_threads>(block, [](StarSumPart x, const StarSumPart& y) { return merged(x, y); });
    if (threadIdx.x == 0) parts[blockIdx.x] = block[0];
}

/// One block adds the @p count block parts: thread t the parts t, t + star_total_threads, ... in order, then
/// a fixed tree over the threads; the total goes to @p total.
__global__ void __launch_bounds__(star_total_threads) star_total_kernel(const StarSumPart* parts, int count,
                                                                          StarSumPart* total) {
    __shared__ StarSumPart block[star_total_threads];
    StarSumPart mine = empty_part();
    for (int i = threadIdx.x; i < count; i += star_total_threads) merge(mine, parts[i]);
    block[threadIdx.x] = mine;
    block_tree<star_total_threads>(block, [](StarSumPart x, const StarSumPart& y) { return merged(x, y); });
    if (threadIdx.x == 0) *total = block[0];
}

/// The star table in the layout @p soa asks for, in precision Real, on the host.
template <class Real>
std::vector<Real> star_table(const model::StarCatalogue& stars, int stride, bool soa) {
    const int count = static_cast<int>(stars.size());
    std::vector<Real> host(static_cast<size_t>(stride) * 5, Real(0));
    for (int n = 0; n < count; ++n) {
        const auto d = geometry::sky_direction(stars.l[n], stars.b[n]);
        const Real f[5] = {Real(d.sinb), Real(d.sinl), Real(d.cosb), Real(d.cosl), Real(stars.r[n])};
        for (int i = 0; i < 5; ++i) host[soa ? static_cast<size_t>(i) * stride + n : static_cast<size_t>(n) * 5 + i] = f[i];
    }
    return host;
}

/// Uploads the convolution's quadrature tables of @p setup on @p queue (the kernels read them from constant
/// memory). Throws CudaError for more than max_convolve points.
template <class Real>
void upload_quadrature(const geometry::IntegrationSetup& setup, cudaStream_t queue) {
    const int n_conv = setup.model.convolve;
    if (n_conv > max_convolve)
        throw CudaError("the likelihood kernel holds at most " + std::to_string(max_convolve) + " convolution points");
    std::vector<Real> offsets(n_conv), weights(n_conv);
    for (int k = 0; k < n_conv; ++k) offsets[k] = Real(setup.offsets[k]), weights[k] = Real(setup.rule.weights[k]);
    if constexpr (sizeof(Real) == 8) {
        check(cudaMemcpyToSymbolAsync(gl_offset_f64, offsets.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL offsets");
        check(cudaMemcpyToSymbolAsync(gl_weight_f64, weights.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL weights");
    } else {
        check(cudaMemcpyToSymbolAsync(gl_offset_f32, offsets.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL offsets");
        check(cudaMemcpyToSymbolAsync(gl_weight_f32, weights.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL weights");
    }
}

/// The kernels' arguments for the resident stars @p rs and the geometry of @p setup, without the mixture weights
/// (zero) and output pointers (null). Throws CudaError for more than max_streams streams.
template <class Real>
StarKernelArgs<Real> geometry_args(const geometry::IntegrationSetup& setup, const ResidentStars& rs) {
    const int S = static_cast<int>(setup.streams.size());
    if (S > max_streams) throw CudaError("the CUDA kernels support at most " + std::to_string(max_streams) + " streams");
    StarKernelArgs<Real> a{};
    a.count = rs.count;
    a.stride = rs.stride;
    a.n_conv = setup.model.convolve;
    a.n_streams = S;
    a.q_inv_sq = Real(setup.q_inv_sq);
    a.r0 = Real(setup.model.r0);
    for (int s = 0; s < S; ++s) {
        const auto& g = setup.streams[s];
        a.centre[3 * s] = Real(g.centre.x), a.centre[3 * s + 1] = Real(g.centre.y), a.centre[3 * s + 2] = Real(g.centre.z);
        a.axis[3 * s] = Real(g.axis.x), a.axis[3 * s + 1] = Real(g.axis.y), a.axis[3 * s + 2] = Real(g.axis.z);
        a.inv_two_sigma_sq[s] = Real(g.inv_two_sigma_sq);
    }
    a.stars = static_cast<const Real*>(rs.stars);
    return a;
}

/// Sets the mixture weights W_c = (E_c / I_c) / Sigma_E of @p a, folded on the host from the model of @p setup and
/// @p integrals.
template <class Real>
void set_mixture_weights(StarKernelArgs<Real>& a, const geometry::IntegrationSetup& setup,
                         const model::Integrals& integrals) {
    const auto mix = likelihood::mixture_weights(setup.model);
    a.weight[0] = Real(mix.background / integrals.background / mix.sum);
    for (int s = 0; s < a.n_streams; ++s) a.weight[1 + s] = Real(mix.streams[s] / integrals.streams[s] / mix.sum);
}

/// Uploads the quadrature tables on @p queue and fills the kernels' arguments for the resident stars @p rs,
/// with the mixture weights (output pointers left null). Throws as upload_quadrature() and geometry_args() do.
template <class Real>
StarKernelArgs<Real> kernel_args(const geometry::IntegrationSetup& setup, const ResidentStars& rs,
                                 const model::Integrals& integrals, cudaStream_t queue) {
    StarKernelArgs<Real> a = geometry_args<Real>(setup, rs);
    upload_quadrature<Real>(setup, queue);
    set_mixture_weights(a, setup, integrals);
    return a;
}

/// Runs likelihood_kernel over the resident stars @p rs on @p queue and downloads the per-star results.
template <class Real>
StarResults run(const geometry::IntegrationSetup& setup, const ResidentStars& rs, const model::Integrals& integrals,
                cudaStream_t queue, bool with_densities) {
    StarKernelArgs<Real> a = kernel_args<Real>(setup, rs, integrals, queue);
    const int S = a.n_streams;
    const int count = rs.count;
    const bool soa = rs.soa;
    const size_t dens_count = static_cast<size_t>(count) * (1 + S);
    Real* d_log = static_cast<Real*>(rs.log_probability);
    Real* d_dens = static_cast<Real*>(rs.densities);
    // Poison the outputs (all bits set is a NaN): a star the kernel never wrote cannot pass a check.
    check(cudaMemsetAsync(d_log, 0xff, sizeof(Real) * count, queue), "poison per-star results");
    check(cudaMemsetAsync(d_dens, 0xff, sizeof(Real) * dens_count, queue), "poison per-star densities");
    a.log_probability = d_log;
    a.densities = d_dens;
    Event start;
    Event stop;
    start.record(queue);
    const int threads = star_threads;
    if (soa) likelihood_kernel<Real, true><<<(count + threads - 1) / threads, threads, 0, queue>>>(a);
    else likelihood_kernel<Real, false><<<(count + threads - 1) / threads, threads, 0, queue>>>(a);
    check(cudaGetLastError(), "launch the likelihood kernel");
    stop.record(queue);
    std::vector<Real> logs(count);
    std::vector<Real> dens(with_densities ? dens_count : 0);
    check(cudaMemcpyAsync(logs.data(), d_log, sizeof(Real) * count, cudaMemcpyDeviceToHost, queue), "download results");
    if (with_densities)
        check(cudaMemcpyAsync(dens.data(), d_dens, sizeof(Real) * dens_count, cudaMemcpyDeviceToHost, queue),
              "download densities");
    check(cudaStreamSynchronize(queue), "run the likelihood kernel");
    StarResults out;
    out.kernel_ms = stop.since(start);
    if constexpr (sizeof(Real) == 8) {
        out.log_probability = std::move(logs);
        out.densities = std::move(dens);
    } else {
        out.log_probability.assign(logs.begin(), logs.end());
        out.densities.assign(dens.begin(), dens.end());
    }
    return out;
}

/// Whether the convolution table of @p rs was made for the quadrature of @p setup (its points and weights).
inline bool table_matches(const geometry::IntegrationSetup& setup, const ResidentStars& rs) {
    return static_cast<int>(rs.conv_offsets.size()) == setup.model.convolve &&
           std::equal(rs.conv_offsets.begin(), rs.conv_offsets.end(), setup.offsets.begin()) &&
           std::equal(rs.conv_weights.begin(), rs.conv_weights.end(), setup.rule.weights.begin());
}

/// Queues star_densities_kernel over the resident stars @p rs on @p queue (its output poisoned first), between
/// @p rs's densities events; the convolution points come from @p rs's table where it has one. Throws CudaError
/// where that table was made for another quadrature.
template <class Real>
void queue_densities(const geometry::IntegrationSetup& setup, const ResidentStars& rs, cudaStream_t queue) {
    StarKernelArgs<Real> a = geometry_args<Real>(setup, rs);
    const bool tabulated = rs.conv_r != nullptr;
    if (tabulated) {
        if (!table_matches(setup, rs))
            throw CudaError("the stars' convolution table was made for another convolution (" +
                            std::to_string(rs.conv_offsets.size()) + " points; this model has " +
                            std::to_string(setup.model.convolve) + ")");
        a.conv_r = static_cast<const Real*>(rs.conv_r);
        a.conv_qw = static_cast<const Real*>(rs.conv_qw);
    } else {
        upload_quadrature<Real>(setup, queue);
    }
    auto* dens = static_cast<Real*>(rs.densities);
    // All bits set is a NaN: a star the kernel never wrote has a NaN probability, which the sum reports.
    check(cudaMemsetAsync(dens, 0xff, sizeof(Real) * static_cast<size_t>(rs.count) * (1 + a.n_streams), queue),
          "poison the star densities");
    rs.densities_start->record(queue);
    if (rs.sum_blocks > 0) {
        const auto launch = [&](auto kernel) { kernel<<<rs.sum_blocks, star_threads, 0, queue>>>(a, dens); };
        if (tabulated) rs.soa ? launch(star_densities_kernel<Real, true, true>) : launch(star_densities_kernel<Real, false, true>);
        else rs.soa ? launch(star_densities_kernel<Real, true, false>) : launch(star_densities_kernel<Real, false, false>);
        check(cudaGetLastError(), "launch the star densities kernel");
    }
    rs.densities_stop->record(queue);
}

/// Makes @p rs's convolution table for the quadrature of @p setup on @p queue and waits for it.
template <class Real>
void tabulate(const geometry::IntegrationSetup& setup, ResidentStars& rs, cudaStream_t queue) {
    const StarKernelArgs<Real> a = geometry_args<Real>(setup, rs);
    const int n_conv = setup.model.convolve;
    const std::size_t size = static_cast<std::size_t>(n_conv) * rs.stride;
    upload_quadrature<Real>(setup, queue);
    rs.conv_r = rs.conv_qw = nullptr;  // no table until it is complete
    auto* r = rs.mem.allocate<Real>(size, "allocate the stars' convolution table");
    auto* qw = rs.mem.allocate<Real>(size, "allocate the stars' convolution table");
    check(cudaMemsetAsync(r, 0xff, sizeof(Real) * size, queue), "poison the stars' convolution table");
    check(cudaMemsetAsync(qw, 0xff, sizeof(Real) * size, queue), "poison the stars' convolution table");
    if (rs.sum_blocks > 0) {
        if (rs.soa) convolution_table_kernel<Real, true><<<rs.sum_blocks, star_threads, 0, queue>>>(a, r, qw);
        else convolution_table_kernel<Real, false><<<rs.sum_blocks, star_threads, 0, queue>>>(a, r, qw);
        check(cudaGetLastError(), "launch the convolution table kernel");
    }
    check(cudaStreamSynchronize(queue), "make the stars' convolution table");
    rs.conv_offsets.assign(setup.offsets.begin(), setup.offsets.begin() + n_conv);
    rs.conv_weights.assign(setup.rule.weights.begin(), setup.rule.weights.begin() + n_conv);
    rs.conv_r = r;
    rs.conv_qw = qw;
}

/// Runs mixture_sum_kernel and star_total_kernel over the densities queue_densities() left in @p rs, on @p queue;
/// only the total comes back.
template <class Real>
StarSum finish_sum(const geometry::IntegrationSetup& setup, const ResidentStars& rs, const model::Integrals& integrals,
                   cudaStream_t queue) {
    StarKernelArgs<Real> a = geometry_args<Real>(setup, rs);
    set_mixture_weights(a, setup, integrals);
    const int blocks = rs.sum_blocks;
    // Poisoned as the per-star results are: a part the kernels never wrote is a NaN and a count of every bit.
    check(cudaMemsetAsync(rs.sum_parts, 0xff, sizeof(StarSumPart) * (rs.sum_blocks + 1), queue), "poison the star sums");
    auto* parts = static_cast<StarSumPart*>(rs.sum_parts);
    const auto* dens = static_cast<const Real*>(rs.densities);
    Event start;
    Event stop;
    start.record(queue);
    if (blocks > 0) {
        if (rs.soa) mixture_sum_kernel<Real, true><<<blocks, star_threads, 0, queue>>>(a, dens, parts);
        else mixture_sum_kernel<Real, false><<<blocks, star_threads, 0, queue>>>(a, dens, parts);
        check(cudaGetLastError(), "launch the mixture sum kernel");
    }
    star_total_kernel<<<1, star_total_threads, 0, queue>>>(parts, blocks, parts + rs.sum_blocks);
    check(cudaGetLastError(), "launch the star total kernel");
    stop.record(queue);
    StarSumPart total{};
    check(cudaMemcpyAsync(&total, parts + rs.sum_blocks, sizeof total, cudaMemcpyDeviceToHost, queue), "download the star sum");
    check(cudaStreamSynchronize(queue), "run the likelihood sum kernels");
    if (total.non_finite_stars > 0) {
        if (total.non_finite_stars <= static_cast<unsigned long long>(rs.count) && total.first_non_finite >= 0 &&
            total.first_non_finite < rs.count)
            throw CudaError("the likelihood kernels left star " + std::to_string(total.first_non_finite) +
                            " without a finite result");
        throw CudaError("the likelihood sum kernels left a block of stars unwritten");
    }
    if (total.zero_stars > static_cast<unsigned long long>(rs.count) || !std::isfinite(total.sum + total.compensation))
        throw CudaError("the likelihood sum kernels left a block of stars unwritten");
    StarSum out;
    out.likelihood = rs.count > 0 ? (total.sum + total.compensation) / static_cast<double>(rs.count)
                                  : std::numeric_limits<double>::quiet_NaN();
    out.zero_stars = static_cast<long long>(total.zero_stars);
    out.kernel_ms = rs.densities_stop->since(*rs.densities_start) + stop.since(start);
    return out;
}

}  // namespace kernels

void allocate_star_sums(ResidentStars& rs) {
    rs.sum_blocks = star_sum_blocks(rs.count);
    rs.sum_parts = rs.mem.allocate<StarSumPart>(static_cast<std::size_t>(rs.sum_blocks) + 1, "allocate the star sums");
    rs.densities_start = std::make_unique<Event>();
    rs.densities_stop = std::make_unique<Event>();
}

ResidentStars::ResidentStars(const model::StarCatalogue& catalogue, bool double_precision_, bool soa_, int n_streams)
    : double_precision(double_precision_), soa(soa_), count(static_cast<int>(catalogue.size())),
      stride(static_cast<int>(star_stride(catalogue.size()))) {
    if (n_streams > max_streams)
        throw CudaError("the CUDA kernels support at most " + std::to_string(max_streams) + " streams");
    const size_t dens_count = static_cast<size_t>(count) * (1 + n_streams);
    if (double_precision) {
        stars = mem.upload(kernels::star_table<double>(catalogue, stride, soa), "upload stars");
        log_probability = mem.allocate<double>(count, "allocate per-star results");
        densities = mem.allocate<double>(dens_count, "allocate per-star densities");
    } else {
        stars = mem.upload(kernels::star_table<float>(catalogue, stride, soa), "upload stars");
        log_probability = mem.allocate<float>(count, "allocate per-star results");
        densities = mem.allocate<float>(dens_count, "allocate per-star densities");
    }
    allocate_star_sums(*this);
}

StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                                  const model::Integrals& integrals, cudaStream_t queue, bool densities) {
    return stars.double_precision ? kernels::run<double>(setup, stars, integrals, queue, densities)
                                  : kernels::run<float>(setup, stars, integrals, queue, densities);
}

void tabulate_convolution(const geometry::IntegrationSetup& setup, ResidentStars& stars, cudaStream_t queue) {
    if (stars.double_precision) kernels::tabulate<double>(setup, stars, queue);
    else kernels::tabulate<float>(setup, stars, queue);
}

void queue_star_densities(const geometry::IntegrationSetup& setup, const ResidentStars& stars, cudaStream_t queue) {
    if (stars.double_precision) kernels::queue_densities<double>(setup, stars, queue);
    else kernels::queue_densities<float>(setup, stars, queue);
}

StarSum finish_likelihood_sum(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                              const model::Integrals& integrals, cudaStream_t queue) {
    return stars.double_precision ? kernels::finish_sum<double>(setup, stars, integrals, queue)
                                  : kernels::finish_sum<float>(setup, stars, integrals, queue);
}

StarSum run_likelihood_sum(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                           const model::Integrals& integrals, cudaStream_t queue) {
    queue_star_densities(setup, stars, queue);
    return finish_likelihood_sum(setup, stars, integrals, queue);
}

StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, bool double_precision, bool soa,
                                  cudaStream_t queue) {
    const ResidentStars resident(stars, double_precision, soa, static_cast<int>(setup.streams.size()));
    return run_likelihood_kernel(setup, resident, integrals, queue);
}

}  // namespace mwsep::cuda
