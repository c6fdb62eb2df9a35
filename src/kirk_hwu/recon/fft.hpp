/// @file fft.hpp
/// @brief A plain radix-2 complex FFT in double precision for the CPU reconstruction (the Toeplitz product
/// and gridding): iterative, in place, unnormalised, for lengths that are powers of two, and its 3-D form
/// over an L₀ × L₁ × L₂ array stored with the first index fastest; beside it, for the non-uniform FFT's
/// oversampled grids, the same transform of any length (Bluestein's chirp-z form over radix-2 transforms).
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

namespace kirk_hwu::recon {

/// The direction of a transform: forward sums a_j e^{−2πi jk/L}, inverse sums a_j e^{+2πi jk/L}. Neither
/// divides by L.
enum class FftSign { forward = -1, inverse = +1 };

/// Whether @p n is a power of two (1 included).
bool is_power_of_two(std::size_t n);

/// Transforms the @p n values at @p data, @p stride apart, in place. std::invalid_argument unless @p n is
/// a power of two.
void fft_1d(std::complex<double>* data, std::size_t n, std::size_t stride, FftSign sign);

/// Transforms the array @p a of @p l0 × @p l1 × @p l2 values (index i + l0 (j + l1 k)) along all three axes.
void fft_3d(std::vector<std::complex<double>>& a, std::size_t l0, std::size_t l1, std::size_t l2, FftSign sign);

/// As fft_1d for any length @p n ≥ 1: radix-2 when n is a power of two, else Bluestein's form, the DFT as a
/// convolution with the chirp e^{±πi j²/n} done by radix-2 transforms of a power of two ≥ 2n − 1 (the chirp's
/// phases reduced modulo 2n, so that their rounding does not grow with j²).
void fft_1d_any(std::complex<double>* data, std::size_t n, std::size_t stride, FftSign sign);

/// As fft_3d for any lengths (fft_1d_any along each axis).
void fft_3d_any(std::vector<std::complex<double>>& a, std::size_t l0, std::size_t l1, std::size_t l2, FftSign sign);

}  // namespace kirk_hwu::recon
