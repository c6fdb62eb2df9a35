/// @file modern.cu
/// @brief Beyond the thesis: the `modern-*` variants, designed for a current GPU rather than the GT200.
///
/// What changes relative to the thesis's kernels (integral.cuh):
///  - **Algebra.** Along a cell's line of sight every point is r u - (R_sun, 0, 0), so the flattened
///    radius squared and each stream's exponent -|d_perp|^2 / (2 sigma^2) are quadratics in r whose three
///    coefficients are computed once per cell (math/sightline.hpp). Per point two fused multiply-adds
///    replace the position, the projection onto the stream axis and the squared norm.
///  - **Exponentials.** Double precision uses exp_nonpositive(): range reduction and a polynomial with
///    no special-case branches, since the arguments are never positive.
///  - **Skipping.** A stream whose terms in an r bin a rigorous bound puts below its share of 2^-60 of the
///    stream's integral is not evaluated there (cpu/stream_skipping.hpp proves the bound; the host computes the
///    thresholds once per area).
///  - **Work decomposition.** One launch per area instead of one per r step: a thread owns one cell and
///    all its n_r x n_conv points, read from one folded table in which the per-r factors are already
///    multiplied in. A second kernel reduces the cells on the device with compensated sums in a fixed
///    order, so the result does not depend on the launch configuration.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>

#include "check.hpp"
#include "device_math.cuh"
#include "math/sightline.hpp"
#include "policies.cuh"
#include "variant_table.hpp"

namespace mwsep::cuda {
/// Kernels, their policies and host launchers; every translation unit's own constant symbols are static.
namespace kernels {

/// Kernel arguments of the modern integral kernel for one area.
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
    int n_blocks;          ///< r bins
    int block;             ///< points per r bin (n_conv)
    Real* cell_out;        ///< per component and cell: the cell's integral [c * stride + p]
    int cells;             ///< n_mu x n_nu
    int stride;            ///< padded cell count (component stride of cell_out)
    int n_nu;              ///< nu bins
    int n_points;          ///< points per line of sight
    Real q_inv_sq;         ///< 1 / q^2
    Real r0;               ///< core radius [kpc]
    double centre[3 * max_streams];     ///< stream centres, x y z per stream
    double axis[3 * max_streams];       ///< stream axes, x y z per stream
    double inv_two_sigma_sq[max_streams];  ///< 1 / (2 sigma^2) per stream
    double threshold[max_streams];    ///< skip a stream's cell whose bound is below this
};

/// Correctly rounded reciprocal in each precision.
__device__ __forceinline__ double reciprocal(double x) { return __drcp_rn(x); }
/// Correctly rounded reciprocal in single precision.
__device__ __forceinline__ float reciprocal(float x) { return __frcp_rn(x); }

// [modern-kernel-begin]
/// The modern integral kernel: one thread per cell, all of its points, S streams unrolled.
template <class Real, int S>
__global__ void modern_integral_kernel(ModernArgs<Real> a) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= a.cells) return;
    const Real sinb = a.sinb[p];
    const Real cbcl = a.cosb[p] * a.cosl[p];
    const Real cbsl = a.cosb[p] * a.sinl[p];
    const Real ids = a.ids[p % a.n_nu];
    const auto radius = math::flattened_radius_quadratic(cbcl, cbsl, sinb, a.q_inv_sq);
    math::Quadratic<Real> exponent[S > 0 ? S : 1];
    math::Quadratic<double> exponent64[S > 0 ? S : 1];  // for the bound, always in double
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const math::Vec3<double> c{a.centre[3 * s], a.centre[3 * s + 1], a.centre[3 * s + 2]};
        const math::Vec3<double> ax{a.axis[3 * s], a.axis[3 * s + 1], a.axis[3 * s + 2]};
        exponent64[s] = math::stream_exponent_quadratic<double>(cbcl, cbsl, sinb, c, ax, a.inv_two_sigma_sq[s]);
        exponent[s] = {Real(exponent64[s].a), Real(exponent64[s].b), Real(exponent64[s].c)};
    }
    Real bg = 0;
    Real st[S > 0 ? S : 1];
#pragma unroll
    for (int s = 0; s < S; ++s) st[s] = 0;
    for (int k = 0; k < a.n_blocks; ++k) {
        // Streams whose bound over this r bin stays below the threshold are provably negligible here.
        bool active[S > 0 ? S : 1];
#pragma unroll
        for (int s = 0; s < S; ++s)
            active[s] = double(ids) * a.block_weight[k] *
                            math::stream_term_bound(exponent64[s], a.block_r_min[k], a.block_r_max[k]) >=
                        a.threshold[s];
        const Real* rp = a.r_point + static_cast<size_t>(k) * a.block;
        const Real* wp = a.weight + static_cast<size_t>(k) * a.block;
#pragma unroll 4
        for (int m = 0; m < a.block; ++m) {
            const Real r = __ldg(rp + m);
            const Real w = __ldg(wp + m);
            // 1 / (r_g (r_g + r0)^3) from one reciprocal square root and one reciprocal, instead of a
            // square root and a division: y = 1 / r_g, so r_g = r_g^2 y.
            const Real rg2 = radius(r);
            const Real y = rsqrt(rg2);
            const Real rs_inv = reciprocal(rg2 * y + a.r0);
            bg += w * y * (rs_inv * rs_inv * rs_inv);
#pragma unroll
            for (int s = 0; s < S; ++s)
                if (active[s]) st[s] += w * math::stream_term_exp(exponent[s](r));
        }
    }
    a.cell_out[p] = bg * ids;
#pragma unroll
    for (int s = 0; s < S; ++s) a.cell_out[static_cast<size_t>(1 + s) * a.stride + p] = st[s] * ids;
}
// [modern-kernel-end]

/// Deterministic reduction of one component's cell values (block c sums component c): each of the 1024
/// threads sums a fixed range of cells with Neumaier compensation, then one thread adds the partial sums
/// in order. The ranges depend only on the cell count, never on how the integral kernel was launched.
template <class Real>
__global__ void __launch_bounds__(1024) modern_reduce_kernel(const Real* cell_out, int cells, int stride, double* sums) {
    __shared__ double partial[1024];
    __shared__ double compensation[1024];
    const Real* values = cell_out + static_cast<size_t>(blockIdx.x) * stride;
    const int chunk = (cells + 1023) / 1024;
    const int first = threadIdx.x * chunk;
    const int last = min(cells, first + chunk);
    double sum = 0, comp = 0;
    for (int i = first; i < last; ++i) {
        const double v = static_cast<double>(values[i]);
        const double t = sum + v;
        comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
        sum = t;
    }
    partial[threadIdx.x] = sum;
    compensation[threadIdx.x] = comp;
    __syncthreads();
    if (threadIdx.x == 0) {
        double total = 0, total_comp = 0;
        for (int i = 0; i < 1024; ++i) {
            const double v = partial[i];
            const double t = total + v;
            total_comp += fabs(total) >= fabs(v) ? (total - t) + v : (v - t) + total;
            total = t;
            total_comp += compensation[i];
        }
        sums[blockIdx.x] = total + total_comp;
    }
}

/// The kernel instance for @p streams streams.
template <class Real, int... Ss>
const void* modern_kernel_for(int streams, std::integer_sequence<int, Ss...>) {
    const void* found = nullptr;
    ((streams == Ss ? (found = reinterpret_cast<const void*>(&modern_integral_kernel<Real, Ss>)) : nullptr), ...);
    return found;
}

/// Kernel lookup for the variant table (there is no register-capped build).
template <class Real>
const void* modern_kernel(int streams, bool capped) {
    return capped ? nullptr : modern_kernel_for<Real>(streams, std::integer_sequence<int, 0, 1, 2, 3, 4>{});
}

/// Launches one area: the integral kernel, then the reduction into area.sums. No host synchronisation.
template <class Real>
void launch_modern(const DeviceArea& area, const DeviceStreams& streams, const LaunchOptions& opt,
                   cudaStream_t stream) {
    const auto& b = area.buffers<Real>();
    ModernArgs<Real> a{};
    a.sinb = b.sinb, a.sinl = b.sinl, a.cosb = b.cosb, a.cosl = b.cosl;
    a.r_point = b.folded_r, a.weight = b.folded_w, a.ids = b.ids, a.cell_out = b.cell_out;
    a.block_weight = area.block_weight, a.block_r_min = area.block_r_min, a.block_r_max = area.block_r_max;
    a.n_blocks = area.n_r, a.block = area.n_conv;
    a.cells = area.cells, a.stride = area.padded, a.n_nu = area.n_nu, a.n_points = area.n_points;
    a.q_inv_sq = Real(streams.q_inv_sq), a.r0 = Real(streams.r0);
    for (int s = 0; s < streams.count; ++s) {
        for (int i = 0; i < 3; ++i) {
            a.centre[3 * s + i] = streams.host_f64[6 * s + i];
            a.axis[3 * s + i] = streams.host_f64[6 * s + 3 + i];
        }
        a.inv_two_sigma_sq[s] = streams.inv_two_sigma_sq_f64[s];
        a.threshold[s] = area.skip_threshold[s];
    }
    const void* kernel = modern_kernel<Real>(streams.count, false);
    if (!kernel) throw CudaError("no modern kernel instance for " + std::to_string(streams.count) + " streams");
    const int threads = opt.threads_per_block;
    const int blocks = (area.cells + threads - 1) / threads;
    void* params[] = {&a};
    check(cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), params, 0, stream), "launch the modern integral kernel");
    modern_reduce_kernel<Real><<<1 + streams.count, 1024, 0, stream>>>(b.cell_out, area.cells, area.padded, area.sums);
    check(cudaGetLastError(), "launch the modern reduction kernel");
}

/// No dynamic shared memory.
inline size_t modern_shared_bytes(int) { return 0; }

/// The table entry of one modern variant.
template <class Real>
VariantInfo describe_modern() {
    VariantInfo info;
    info.memory = "modern";
    info.divsqrt = "ieee";
    info.loop = "unrolled";
    info.precision = PrecisionName<Real>::name;
    info.name = std::string("modern-") + info.precision;
    info.double_precision = sizeof(Real) == 8;
    info.unrolled = true;
    info.launch = &launch_modern<Real>;
    info.kernel = &modern_kernel<Real>;
    info.shared_bytes = &modern_shared_bytes;
    info.has_capped_build = false;
    info.device_reduced = true;
    return info;
}

}  // namespace kernels

void add_modern_variants(std::vector<VariantInfo>& out) {
    out.push_back(kernels::describe_modern<double>());
    out.push_back(kernels::describe_modern<float>());
}

}  // namespace mwsep::cuda
