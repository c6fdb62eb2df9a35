/// @file likelihood_kernel.cu
/// @brief The likelihood kernel (thesis section 4.2.2): one thread per star.
///
/// Each thread reads its star (structure-of-arrays layout by default, so that a warp's loads coalesce;
/// the array-of-structures layout the thesis started from is kept as an option), computes the star's
/// convolution points on the fly (every star has its own distance), evaluates the background and stream
/// densities with the shared per-point formulas, and writes log10 of its mixture probability (or the
/// -238 penalty) and its densities. The host sums the per-star values in star order. Plain IEEE division
/// and square root and a runtime stream loop, as in the thesis: this kernel takes well under 1% of the time.
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "cuda_check.hpp"
#include "mwsep/likelihood/likelihood.hpp"
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
};

/// Delta g_k of node @p k; the unnamed first argument only picks the table of its precision.
__device__ __forceinline__ double gl_offset(double, int k) { return gl_offset_f64[k]; }
__device__ __forceinline__ double gl_weight(double, int k) { return gl_weight_f64[k]; }  ///< w_k of node k
__device__ __forceinline__ float gl_offset(float, int k) { return gl_offset_f32[k]; }    ///< Delta g_k, single precision
__device__ __forceinline__ float gl_weight(float, int k) { return gl_weight_f32[k]; }    ///< w_k, single precision

// [likelihood-kernel-begin]
/// One thread per star: densities at the star's own distance, then log10 of its mixture
/// probability.
template <class Real, bool StructureOfArrays>
__global__ void likelihood_kernel(StarKernelArgs<Real> a) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= a.count) return;
    const auto field = [&](int f) {
        return StructureOfArrays ? a.stars[f * a.stride + n] : a.stars[n * 5 + f];
    };
    const Real sinb = field(0), sinl = field(1), cosb = field(2), cosl = field(3), r = field(4);
    const Real cbcl = cosb * cosl, cbsl = cosb * sinl;
    const Real g_centre = math::magnitude_from_distance(r);
    Real dens[1 + max_streams] = {};
    for (int k = 0; k < a.n_conv; ++k) {
        const auto pt =
            math::convolution_point(g_centre, gl_offset(Real(), k), gl_weight(Real(), k));
        const auto pos = math::point_position(pt.r_point, cbcl, cbsl, sinb);
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
    const Real efficiency = math::efficiency_factor(r);
    Real p = dens[0] * a.weight[0];
    for (int s = 0; s < a.n_streams; ++s) p += dens[1 + s] * a.weight[1 + s];
    p *= efficiency;
    a.log_probability[n] = math::log10_or_penalty(p);
    for (int c = 0; c <= a.n_streams; ++c)
        a.densities[static_cast<size_t>(n) * (1 + a.n_streams) + c] = dens[c] * efficiency;
}
// [likelihood-kernel-end]

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

/// Uploads the quadrature tables, folds the mixture weights W_c = (E_c / I_c) / Sigma_E on the host, runs
/// likelihood_kernel over the resident stars @p rs on @p queue and downloads the per-star results. Throws
/// CudaError for more than max_convolve points or more than max_streams streams.
template <class Real>
StarResults run(const geometry::IntegrationSetup& setup, const ResidentStars& rs, const model::Integrals& integrals,
                cudaStream_t queue, bool with_densities) {
    const int n_conv = setup.model.convolve;
    const int S = static_cast<int>(setup.streams.size());
    if (n_conv > max_convolve)
        throw CudaError("the likelihood kernel holds at most " + std::to_string(max_convolve) + " convolution points");
    if (S > max_streams) throw CudaError("the CUDA kernels support at most " + std::to_string(max_streams) + " streams");
    const int count = rs.count;
    const bool soa = rs.soa;
    std::vector<Real> offsets(n_conv), weights(n_conv);
    for (int k = 0; k < n_conv; ++k) offsets[k] = Real(setup.offsets[k]), weights[k] = Real(setup.rule.weights[k]);
    if constexpr (sizeof(Real) == 8) {
        check(cudaMemcpyToSymbolAsync(gl_offset_f64, offsets.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL offsets");
        check(cudaMemcpyToSymbolAsync(gl_weight_f64, weights.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL weights");
    } else {
        check(cudaMemcpyToSymbolAsync(gl_offset_f32, offsets.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL offsets");
        check(cudaMemcpyToSymbolAsync(gl_weight_f32, weights.data(), sizeof(Real) * n_conv, 0, cudaMemcpyHostToDevice, queue), "upload GL weights");
    }
    StarKernelArgs<Real> a{};
    a.count = count;
    a.stride = rs.stride;
    a.n_conv = n_conv;
    a.n_streams = S;
    a.q_inv_sq = Real(setup.q_inv_sq);
    a.r0 = Real(setup.model.r0);
    const auto mix = likelihood::mixture_weights(setup.model);
    a.weight[0] = Real(mix.background / integrals.background / mix.sum);
    for (int s = 0; s < S; ++s) {
        const auto& g = setup.streams[s];
        a.centre[3 * s] = Real(g.centre.x), a.centre[3 * s + 1] = Real(g.centre.y), a.centre[3 * s + 2] = Real(g.centre.z);
        a.axis[3 * s] = Real(g.axis.x), a.axis[3 * s + 1] = Real(g.axis.y), a.axis[3 * s + 2] = Real(g.axis.z);
        a.inv_two_sigma_sq[s] = Real(g.inv_two_sigma_sq);
        a.weight[1 + s] = Real(mix.streams[s] / integrals.streams[s] / mix.sum);
    }
    const size_t dens_count = static_cast<size_t>(count) * (1 + S);
    Real* d_log = static_cast<Real*>(rs.log_probability);
    Real* d_dens = static_cast<Real*>(rs.densities);
    // Poison the outputs (all bits set is a NaN): a star the kernel never wrote cannot pass a check.
    check(cudaMemsetAsync(d_log, 0xff, sizeof(Real) * count, queue), "poison per-star results");
    check(cudaMemsetAsync(d_dens, 0xff, sizeof(Real) * dens_count, queue), "poison per-star densities");
    a.stars = static_cast<const Real*>(rs.stars);
    a.log_probability = d_log;
    a.densities = d_dens;
    Event start;
    Event stop;
    start.record(queue);
    const int threads = 64;
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

}  // namespace kernels

ResidentStars::ResidentStars(const model::StarCatalogue& catalogue, bool double_precision_, bool soa_, int n_streams)
    : double_precision(double_precision_), soa(soa_), count(static_cast<int>(catalogue.size())),
      stride((count + 63) / 64 * 64) {
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
}

StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                                  const model::Integrals& integrals, cudaStream_t queue, bool densities) {
    return stars.double_precision ? kernels::run<double>(setup, stars, integrals, queue, densities)
                                  : kernels::run<float>(setup, stars, integrals, queue, densities);
}

StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, bool double_precision, bool soa,
                                  cudaStream_t queue) {
    const ResidentStars resident(stars, double_precision, soa, static_cast<int>(setup.streams.size()));
    return run_likelihood_kernel(setup, resident, integrals, queue);
}

}  // namespace mwsep::cuda
