// The non-uniform FFT on the GPU (nufft_gpu.hpp): spreading with atomic additions, cuFFT, deapodisation; and
// the transpose: deapodisation into the zeroed grid, cuFFT, interpolation.
#include "nufft_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <stdexcept>
#include <string>

#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "kirk_hwu/recon/nufft_math.hpp"

namespace kirk_hwu::gpu {

namespace {

using recon::nufft_first;
using recon::nufft_max_width;
using recon::nufft_weights;
using recon::nufft_wrap;

/// Throws std::runtime_error naming @p what unless @p status is CUFFT_SUCCESS.
void check_fft(cufftResult status, const char* what) {
    if (status != CUFFT_SUCCESS)
        throw std::runtime_error(std::string("cuFFT failed to ") + what + " (cufftResult " + std::to_string(status) + ")");
}

/// Threads per block of every kernel here.
constexpr int block = 256;
/// Blocks that cover @p n threads.
int blocks_for(std::size_t n) { return static_cast<int>((n + block - 1) / block); }

// [nufft-spread-begin]
/// Type 1, spreading: one thread per sample (in cell order) adds c_m φ(u − p) to the W³ points p around it. The
/// width is a template parameter, so that the weights stay in registers and the loops unroll.
template <int width>
__global__ void nufft_spread(const double* ux, const double* uy, const double* uz, const int* order, const double2* c,
                             int samples, int l, double beta, double* grid) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= samples) return;
    const double2 value = c[order[s]];
    const int fx = nufft_first(ux[s], width), fy = nufft_first(uy[s], width), fz = nufft_first(uz[s], width);
    double wx[width], wy[width], wz[width];
    nufft_weights(ux[s], fx, width, beta, wx);
    nufft_weights(uy[s], fy, width, beta, wy);
    nufft_weights(uz[s], fz, width, beta, wz);
    const std::size_t ls = static_cast<std::size_t>(l);
    for (int c3 = 0; c3 < width; ++c3) {
        const std::size_t pz = static_cast<std::size_t>(nufft_wrap(fz + c3, l));
        for (int c2 = 0; c2 < width; ++c2) {
            const std::size_t row = ls * (static_cast<std::size_t>(nufft_wrap(fy + c2, l)) + ls * pz);
            const double w = wz[c3] * wy[c2];
            const double re = value.x * w, im = value.y * w;
            for (int c1 = 0; c1 < width; ++c1) {
                double* point = grid + 2 * (static_cast<std::size_t>(nufft_wrap(fx + c1, l)) + row);
                atomicAdd(point, re * wx[c1]);
                atomicAdd(point + 1, im * wx[c1]);
            }
        }
    }
}
// [nufft-spread-end]

/// Type 2, interpolation: one thread per sample gathers Σ_p φ(u − p) H_p (times its weight when given).
template <int width>
__global__ void nufft_interpolate(const double* ux, const double* uy, const double* uz, const int* order, const double2* grid,
                                  int samples, int l, double beta, const double* weights, double2* c) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= samples) return;
    const int fx = nufft_first(ux[s], width), fy = nufft_first(uy[s], width), fz = nufft_first(uz[s], width);
    double wx[width], wy[width], wz[width];
    nufft_weights(ux[s], fx, width, beta, wx);
    nufft_weights(uy[s], fy, width, beta, wy);
    nufft_weights(uz[s], fz, width, beta, wz);
    const std::size_t ls = static_cast<std::size_t>(l);
    double re = 0, im = 0;
    for (int c3 = 0; c3 < width; ++c3) {
        const std::size_t pz = static_cast<std::size_t>(nufft_wrap(fz + c3, l));
        for (int c2 = 0; c2 < width; ++c2) {
            const std::size_t row = ls * (static_cast<std::size_t>(nufft_wrap(fy + c2, l)) + ls * pz);
            double rr = 0, ri = 0;
            for (int c1 = 0; c1 < width; ++c1) {
                const double2 h = grid[static_cast<std::size_t>(nufft_wrap(fx + c1, l)) + row];
                rr += h.x * wx[c1];
                ri += h.y * wx[c1];
            }
            const double w = wz[c3] * wy[c2];
            re += rr * w;
            im += ri * w;
        }
    }
    const int m = order[s];
    const double scale = weights ? weights[m] : 1.0;
    c[m] = make_double2(re * scale, im * scale);
}

/// The grid index of image index @p i on the L-point grid: (i − N₁/2) mod L.
__device__ std::size_t image_to_grid(int i, int n1, int l) { return static_cast<std::size_t>(nufft_wrap(i - n1 / 2, l)); }

/// Type 1's last step: the image from the transformed grid, divided by the kernel's transform per axis.
__global__ void nufft_deapodise(const double2* grid, const double* d, int n1, int l, double2* image) {
    const std::size_t n = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (n >= static_cast<std::size_t>(n1) * n1 * n1) return;
    const int i = static_cast<int>(n % n1), j = static_cast<int>(n / n1 % n1), k = static_cast<int>(n / n1 / n1);
    const std::size_t ls = static_cast<std::size_t>(l);
    const double2 v = grid[image_to_grid(i, n1, l) + ls * (image_to_grid(j, n1, l) + ls * image_to_grid(k, n1, l))];
    const double scale = d[i] * d[j] * d[k];
    image[n] = make_double2(v.x * scale, v.y * scale);
}

/// Type 2's first step: the image, divided by the kernel's transform per axis, into the zeroed grid.
__global__ void nufft_pad(const double2* image, const double* d, int n1, int l, double2* grid) {
    const std::size_t n = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (n >= static_cast<std::size_t>(n1) * n1 * n1) return;
    const int i = static_cast<int>(n % n1), j = static_cast<int>(n / n1 % n1), k = static_cast<int>(n / n1 / n1);
    const std::size_t ls = static_cast<std::size_t>(l);
    const double scale = d[i] * d[j] * d[k];
    grid[image_to_grid(i, n1, l) + ls * (image_to_grid(j, n1, l) + ls * image_to_grid(k, n1, l))] =
        make_double2(image[n].x * scale, image[n].y * scale);
}

/// Edge of the cubes of grid cells the samples are sorted by.
constexpr int sort_bin = 4;

/// Calls @p launch with the kernel width as a compile-time constant (2 … nufft_max_width).
template <class Launch>
void with_width(int width, const Launch& launch) {
    switch (width) {
#define KH_NUFFT_WIDTH(W) \
    case W: launch(std::integral_constant<int, W>{}); return;
        KH_NUFFT_WIDTH(2) KH_NUFFT_WIDTH(3) KH_NUFFT_WIDTH(4) KH_NUFFT_WIDTH(5) KH_NUFFT_WIDTH(6) KH_NUFFT_WIDTH(7)
        KH_NUFFT_WIDTH(8) KH_NUFFT_WIDTH(9) KH_NUFFT_WIDTH(10) KH_NUFFT_WIDTH(11) KH_NUFFT_WIDTH(12) KH_NUFFT_WIDTH(13)
        KH_NUFFT_WIDTH(14) KH_NUFFT_WIDTH(15) KH_NUFFT_WIDTH(16)
#undef KH_NUFFT_WIDTH
        default: throw std::invalid_argument("the NUFFT has no kernel " + std::to_string(width) + " cells wide");
    }
}
static_assert(nufft_max_width == 16, "with_width instantiates the widths 2 to 16");

}  // namespace

harness::DevicePlan NufftDevice::plan(const recon::NufftGrid& g, std::size_t samples) {
    const std::size_t l = static_cast<std::size_t>(g.grid);
    std::size_t work = 0;
    check_fft(cufftEstimate3d(g.grid, g.grid, g.grid, CUFFT_Z2Z, &work), "estimate the NUFFT's FFT work area");
    harness::DevicePlan p("the NUFFT of " + std::to_string(samples) + " samples on a " + std::to_string(g.grid) + "^3 grid");
    p.add<double>("the sample positions", samples, 3)
        .add<int>("the samples' order", samples)
        .add<double>("the deapodisation factors", static_cast<std::size_t>(g.image))
        .add<double2>("the oversampled grid", l * l * l)
        .add<char>("the FFT's work area", work);
    return p;
}

// [nufft-setup-begin]
NufftDevice::NufftDevice(const recon::NufftGrid& g, const std::vector<double>& kx, const std::vector<double>& ky,
                         const std::vector<double>& kz, cudaStream_t stream)
    : grid_(g), samples_(kx.size()) {
    if (ky.size() != kx.size() || kz.size() != kx.size()) throw std::invalid_argument("NufftDevice: the k arrays differ in length");
    if (g.width > nufft_max_width || g.width < 2) throw std::invalid_argument("NufftDevice: the kernel width is out of range");
    harness::require_device_memory(plan(g, samples_), -1, "choose a coarser tolerance or less oversampling, or free the device");
    // Grid coordinates, and the samples in the order of the cubes of cells they fall in (x fastest).
    const double scale = static_cast<double>(g.grid) / g.image;
    std::vector<double> u[3];
    for (std::size_t m = 0; m < samples_; ++m) u[0].push_back(kx[m] * scale), u[1].push_back(ky[m] * scale), u[2].push_back(kz[m] * scale);
    const int bins = (g.grid + sort_bin - 1) / sort_bin;
    std::vector<long long> bin(samples_);
    for (std::size_t m = 0; m < samples_; ++m) {
        long long b = 0;
        for (int a = 2; a >= 0; --a) b = b * bins + nufft_wrap(static_cast<int>(std::floor(u[a][m])), g.grid) / sort_bin;
        bin[m] = b;
    }
    std::vector<int> order(samples_);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bin[a] < bin[b]; });
    for (int a = 0; a < 3; ++a) {
        std::vector<double> sorted(samples_);
        for (std::size_t s = 0; s < samples_; ++s) sorted[s] = u[a][static_cast<std::size_t>(order[s])];
        u_[a] = memory_.upload(sorted, "upload the NUFFT's sample positions");
    }
    order_ = memory_.upload(order, "upload the NUFFT's sample order");
    deapodise_ = memory_.upload(recon::nufft_deapodisation(g), "upload the deapodisation factors");
    const std::size_t l = static_cast<std::size_t>(g.grid);
    grid_values_ = memory_.allocate<double2>(l * l * l, "allocate the NUFFT's oversampled grid");
    check_fft(cufftPlan3d(&fft_, g.grid, g.grid, g.grid, CUFFT_Z2Z), "plan the NUFFT's 3-D FFT");
    check_fft(cufftSetStream(fft_, stream), "set the NUFFT's stream");
}
// [nufft-setup-end]

NufftDevice::~NufftDevice() {
    if (fft_) cufftDestroy(fft_);
}

// [nufft-gpu-adjoint-begin]
void NufftDevice::adjoint(const double2* c, double2* image, cudaStream_t stream) {
    const std::size_t l = static_cast<std::size_t>(grid_.grid), n = static_cast<std::size_t>(grid_.image);
    check_fft(cufftSetStream(fft_, stream), "set the NUFFT's stream");
    harness::check(cudaMemsetAsync(grid_values_, 0, sizeof(double2) * l * l * l, stream), "zero the NUFFT's grid");
    with_width(grid_.width, [&](auto w) {
        nufft_spread<decltype(w)::value><<<blocks_for(samples_), block, 0, stream>>>(
            u_[0], u_[1], u_[2], order_, c, static_cast<int>(samples_), grid_.grid, grid_.beta, reinterpret_cast<double*>(grid_values_));
    });
    harness::check(cudaGetLastError(), "launch the NUFFT's spreading");
    check_fft(cufftExecZ2Z(fft_, grid_values_, grid_values_, CUFFT_INVERSE), "run the NUFFT's inverse FFT");
    nufft_deapodise<<<blocks_for(n * n * n), block, 0, stream>>>(grid_values_, deapodise_, grid_.image, grid_.grid, image);
    harness::check(cudaGetLastError(), "launch the NUFFT's deapodisation");
}
// [nufft-gpu-adjoint-end]

void NufftDevice::forward(const double2* image, double2* c, const double* weights, cudaStream_t stream) {
    const std::size_t l = static_cast<std::size_t>(grid_.grid), n = static_cast<std::size_t>(grid_.image);
    check_fft(cufftSetStream(fft_, stream), "set the NUFFT's stream");
    harness::check(cudaMemsetAsync(grid_values_, 0, sizeof(double2) * l * l * l, stream), "zero the NUFFT's grid");
    nufft_pad<<<blocks_for(n * n * n), block, 0, stream>>>(image, deapodise_, grid_.image, grid_.grid, grid_values_);
    harness::check(cudaGetLastError(), "launch the NUFFT's padding");
    check_fft(cufftExecZ2Z(fft_, grid_values_, grid_values_, CUFFT_FORWARD), "run the NUFFT's forward FFT");
    with_width(grid_.width, [&](auto w) {
        nufft_interpolate<decltype(w)::value><<<blocks_for(samples_), block, 0, stream>>>(
            u_[0], u_[1], u_[2], order_, grid_values_, static_cast<int>(samples_), grid_.grid, grid_.beta, weights, c);
    });
    harness::check(cudaGetLastError(), "launch the NUFFT's interpolation");
}

}  // namespace kirk_hwu::gpu
