/// @file nufft.hpp
/// @brief The non-uniform FFT of the reconstruction: a different algorithm from the documents' direct sums,
/// whose error against them is measured and controlled. The adjoint (type 1, the F^H d of the documents),
///     f_n = Σ_m c_m e^{+2πi k_m·x_n},   x_n = n / N₁ (n ∈ [−N₁/2, N₁/2)³),
/// spreads each sample onto an oversampled grid of L ≥ σN₁ points per edge with a Kaiser-Bessel kernel W cells
/// wide, transforms the grid with an inverse FFT of L³ points and divides the central N₁³ by the kernel's Fourier
/// transform (deapodisation). The forward (type 2), c_m = Σ_n f_n e^{−2πi k_m·x_n}, is its exact transpose:
/// deapodise, zero-pad, forward FFT, interpolate with the same kernel weights. Density compensation is the
/// trajectory's (the shell weights w_m of make_recon_problem), applied by the caller to the data (μ_m = w_m d_m)
/// and, in the reconstruction, between the forward and the adjoint (AᴴA = T₁ W T₂).
///
/// Accuracy: for a requested relative error ε the width is the standard estimate of the kernel's aliasing error,
/// which decays like e^{−πW√(1 − 1/σ)} (Kaiser-Bessel and exponential-of-semicircle kernels alike):
///     W = ⌈ ln(10/ε) / (π √(1 − 1/σ)) ⌉, at least 2 (a tolerance that needs more than 16 is refused),
/// with the shape β of Beatty, Nishimura and Pauly for that W and σ; the factor 10 covers the three axes' errors
/// adding up. The tests hold the measured relative L2 error against the direct sum below ε and falling with W.
///
/// This file is the CPU implementation, in double precision with the project's FFT (fft_3d_any); the GPU one
/// (kernels/kirk_hwu/nufft_gpu.cu, cuFFT) uses the same grid, kernel and index arithmetic (nufft_math.hpp).
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

namespace kirk_hwu::recon {

/// What the caller asks of a non-uniform FFT.
struct NufftSettings {
    double tolerance = 1e-6;    ///< requested relative L2 error against the direct sum (sets the width)
    double oversampling = 2.0;  ///< σ: the grid has at least σ N₁ points per edge (1.25 … 4)
    int width = 0;              ///< kernel width W in grid cells (0: from the tolerance)
};

/// The grid and kernel a NUFFT runs with, worked out from the settings and the image's edge.
struct NufftGrid {
    int image = 0;      ///< N₁: image points per edge
    int grid = 0;       ///< L: oversampled grid points per edge (even, a product of 2, 3, 5 and 7, ≥ σ N₁)
    int width = 0;      ///< W: kernel width in grid cells
    double beta = 0;    ///< Kaiser-Bessel shape
    double tolerance = 0;  ///< the tolerance it was chosen for (0 when the width was given)
    /// The oversampling it has: L / N₁.
    double sigma() const { return static_cast<double>(grid) / image; }
};

/// The width of the standard estimate for relative error @p tolerance on a grid oversampled @p sigma times
/// (see the file's description; at least 2, not capped). std::invalid_argument unless 0 < tolerance < 1 and
/// sigma > 1.
int nufft_width(double tolerance, double sigma);

/// The smallest even number ≥ @p n whose only prime factors are 2, 3, 5 and 7 (an FFT size cuFFT and the
/// CPU's fft_3d_any handle well).
std::size_t next_smooth_size(std::size_t n);

/// The grid of @p settings for an image of @p image points per edge. std::invalid_argument for an odd or
/// non-positive image, an oversampling outside [1.25, 4], a width outside [2, 16] (given, or needed for the
/// tolerance) or a bad tolerance.
NufftGrid nufft_grid(int image, const NufftSettings& settings);

/// The deapodisation factors 1 / φ̂(n / L) for n = −N₁/2 … N₁/2 − 1 (index n + N₁/2), φ̂ the kernel's Fourier
/// transform; the 3-D factor of a voxel is the product of its three.
std::vector<double> nufft_deapodisation(const NufftGrid& grid);

/// A NUFFT on the CPU for fixed sample positions k_m (cycles per field of view, |k| ≤ N₁/2 per axis).
class Nufft {
public:
    /// Keeps the grid and the sample positions (converted to grid units).
    Nufft(const NufftGrid& grid, const std::vector<double>& kx, const std::vector<double>& ky,
          const std::vector<double>& kz);
    /// The grid it runs on.
    const NufftGrid& grid() const { return grid_; }
    /// Number of samples.
    std::size_t samples() const { return ux_.size(); }
    /// The adjoint (type 1): f_n = Σ_m c_m e^{+2πi k_m·x_n} over the N₁³ image (index i + N₁ (j + N₁ l)).
    std::vector<std::complex<double>> adjoint(const std::vector<std::complex<double>>& c) const;
    /// The forward (type 2): c_m = Σ_n f_n e^{−2πi k_m·x_n}, the adjoint's exact transpose.
    std::vector<std::complex<double>> forward(const std::vector<std::complex<double>>& f) const;

private:
    NufftGrid grid_;
    std::vector<double> ux_, uy_, uz_;  // sample positions in grid cells (k L / N₁)
    std::vector<double> deapodise_;     // 1 / φ̂ per image index along an axis
};

}  // namespace kirk_hwu::recon
