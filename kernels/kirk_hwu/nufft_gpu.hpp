/// @file nufft_gpu.hpp
/// @brief The non-uniform FFT on the GPU, in double precision: the CPU's algorithm (src/kirk_hwu/recon/nufft.hpp;
/// the same grid, kernel, weights and deapodisation, nufft_math.hpp) with cuFFT for the oversampled grid's
/// transform. The adjoint (type 1) spreads one sample per thread with atomic additions into the grid; the
/// samples are visited in the order of the grid cells they fall in (sorted once, as a plan's set-up), so that
/// neighbouring threads add to neighbouring points. The forward (type 2) interpolates one sample per thread from
/// the transformed grid, with no atomics. Plain C++ interface; the CUDA code is behind it.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <cstddef>
#include <vector>

#include "harness/device_budget.hpp"
#include "harness/device_memory.hpp"
#include "kirk_hwu/recon/nufft.hpp"

namespace kirk_hwu::gpu {

/// A NUFFT plan on the current device for fixed sample positions.
class NufftDevice {
public:
    /// What the plan allocates for @p samples samples on @p grid: the sorted positions and their order, the
    /// deapodisation factors, the oversampled grid and cuFFT's work area.
    static harness::DevicePlan plan(const recon::NufftGrid& grid, std::size_t samples);
    /// Uploads the positions @p kx, @p ky, @p kz (cycles per field of view) in grid units, sorted by grid cell,
    /// and plans the L³ double-complex FFT on @p stream.
    NufftDevice(const recon::NufftGrid& grid, const std::vector<double>& kx, const std::vector<double>& ky,
                const std::vector<double>& kz, cudaStream_t stream);
    ~NufftDevice();
    NufftDevice(const NufftDevice&) = delete;
    NufftDevice& operator=(const NufftDevice&) = delete;
    /// The grid it runs on.
    const recon::NufftGrid& grid() const { return grid_; }
    /// Number of samples.
    std::size_t samples() const { return samples_; }
    /// @p image (N₁³ values, index i + N₁ (j + N₁ l)) = Σ_m c_m e^{+2πi k_m·x_n}, for @p c in the samples' order.
    void adjoint(const double2* c, double2* image, cudaStream_t stream);
    /// @p c = Σ_n image_n e^{−2πi k_m·x_n}, each times @p weights[m] when given (the density weights of AᴴA).
    void forward(const double2* image, double2* c, const double* weights, cudaStream_t stream);

private:
    recon::NufftGrid grid_;
    std::size_t samples_ = 0;
    harness::DeviceMemory memory_;
    double* u_[3] = {};          // positions in grid cells, in sorted order
    int* order_ = nullptr;       // sorted position -> the sample's index
    double* deapodise_ = nullptr;  // 1 / φ̂ per image index along an axis
    double2* grid_values_ = nullptr;  // the L³ oversampled grid
    cufftHandle fft_ = 0;
};

}  // namespace kirk_hwu::gpu
