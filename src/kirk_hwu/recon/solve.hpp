/// @file solve.hpp
/// @brief The CPU reconstruction in double precision: the forward model A = Φ F and its adjoint evaluated
/// directly, AᴴA through its Toeplitz structure (the Q values on the doubled offsets grid, embedded in a
/// circulant and applied with FFTs), the roughness regulariser, conjugate gradients on
/// (AᴴA + λR) ρ = Aᴴd, and the gridding reconstruction (Kaiser-Bessel interpolation onto an oversampled
/// grid, inverse FFT, deapodisation).
#pragma once

#include <complex>
#include <functional>
#include <vector>

#include "kirk_hwu/inputs.hpp"
#include "kirk_hwu/reference.hpp"

namespace kirk_hwu::recon {

/// A complex image or k-space vector.
using ComplexVector = std::vector<std::complex<double>>;

/// (A x)_m = φ_m Σ_n e^{−2πi k_m·x_n} x_n over the voxels and samples of @p in (float values widened),
/// on @p threads threads.
ComplexVector forward_direct(const MriInput& in, const ComplexVector& image, int threads);
/// (Aᴴ y)_n = Σ_m conj(φ_m) y_m e^{+2πi k_m·x_n}, the adjoint of forward_direct.
ComplexVector adjoint_direct(const MriInput& in, const ComplexVector& samples, int threads);

/// AᴴA as a circulant convolution: the FFT of the (2N₁)³ circulant array that holds Q at every voxel
/// offset (Q on the doubled grid, shifted so that offset 0 comes first).
struct ToeplitzKernel {
    int grid = 0;                ///< N₁
    ComplexVector spectrum;      ///< FFT of the circulant array, (2N₁)³ values, divided by (2N₁)³
};

/// The kernel from Q on the (2N₁)³ offsets grid: @p q holds the real parts, then the imaginary parts, as
/// mri_reference and MriDevice::download return them.
ToeplitzKernel toeplitz_kernel(int grid, const std::vector<double>& q);
/// AᴴA x through the kernel: zero-pad x to (2N₁)³, FFT, multiply, inverse FFT, keep the first N₁³.
ComplexVector toeplitz_apply(const ToeplitzKernel& kernel, const ComplexVector& image);

/// R x: the roughness penalty DᵀD of first differences between neighbours along each axis (a discrete
/// negative Laplacian, no differences across the image's edge), on an N₁³ image.
ComplexVector roughness_apply(int grid, const ComplexVector& image);

/// When conjugate gradients stops.
struct CgSettings {
    int max_iterations = 30;   ///< iterations at most
    double tolerance = 1e-6;   ///< stop once ‖r‖ ≤ tolerance · ‖b‖ (0: run every iteration)
};

/// One iteration's state.
struct CgIteration {
    int iteration;      ///< 1, 2, …
    double residual;    ///< ‖r_k‖ / ‖b‖ (the recursively updated residual)
    double quadratic;   ///< f(x_k) = ½ x_kᴴ A x_k − Re(bᴴ x_k) = ½‖x_k − x*‖²_A − ½ bᴴA⁻¹b
};

/// The solution and its iterations.
struct CgResult {
    ComplexVector x;                   ///< the last iterate
    std::vector<CgIteration> history;  ///< one entry per iteration
};

/// Conjugate gradients on A x = b for Hermitian positive-definite A given by @p apply, from x₀ = 0;
/// @p observe (if set) sees every iterate.
CgResult conjugate_gradient(const std::function<ComplexVector(const ComplexVector&)>& apply, const ComplexVector& b,
                            const CgSettings& settings,
                            const std::function<void(int, const ComplexVector&)>& observe = {});

/// The gridding kernel and grid.
struct GriddingSettings {
    int oversampling = 2;  ///< σ: the grid has σ N₁ points per edge
    double width = 6;      ///< kernel width W in grid cells
};

/// The gridding image of the samples of @p in: Σ_m μ_m KB(u − u_m) onto the σN₁ grid (μ_m = conj(φ_m) d'_m,
/// the density-compensated data), inverse FFT, the central N₁³ divided by σ³ and the kernel's transform.
ComplexVector gridding(const MriInput& in, const GriddingSettings& settings);

/// The errors of @p image against the real @p truth: all real parts, then all imaginary parts (zero in
/// the truth), as compare() measures them.
ErrorStats image_error(const ComplexVector& image, const std::vector<double>& truth);

/// The image as the real parts then the imaginary parts, for compare().
std::vector<double> split(const ComplexVector& image);

}  // namespace kirk_hwu::recon
