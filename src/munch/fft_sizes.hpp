/// @file fft_sizes.hpp
/// @brief The transform length of the FFT convolution and the error bound its check uses.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace munch {

/// The smallest even length >= @p at_least whose only prime factors are 2, 3, 5 and 7 (the lengths
/// cuFFT transforms fastest).
inline std::size_t fft_size(std::size_t at_least) {
    std::size_t best = 2;
    while (best < at_least) best *= 2;
    for (std::size_t p7 = 1; p7 < best; p7 *= 7)
        for (std::size_t p5 = p7; p5 < best; p5 *= 5)
            for (std::size_t p3 = p5; p3 < best; p3 *= 3) {
                std::size_t v = p3 * 2;
                while (v < at_least) v *= 2;
                if (v < best) best = v;
            }
    return best;
}

/// The largest error the FFT convolution may make in one output: the classical bound for a convolution
/// through a floating-point FFT, c * eps * log2(size) * ||signal||_2 * ||filter||_2, with float's eps and
/// c = 4 (forward, forward, product, inverse).
inline double fft_error_bound(const std::vector<float>& signal, const std::vector<float>& filter, std::size_t size) {
    double s2 = 0, f2 = 0;
    for (float v : signal) s2 += static_cast<double>(v) * v;
    for (float v : filter) f2 += static_cast<double>(v) * v;
    return 4.0 * 5.9604644775390625e-8 * std::log2(static_cast<double>(size)) * std::sqrt(s2) * std::sqrt(f2);
}

}  // namespace munch
