#include "kirk_hwu/recon/fft.hpp"

#include <cmath>
#include <stdexcept>

namespace kirk_hwu::recon {

bool is_power_of_two(std::size_t n) { return n > 0 && (n & (n - 1)) == 0; }

void fft_1d(std::complex<double>* data, std::size_t n, std::size_t stride, FftSign sign) {
    if (!is_power_of_two(n)) throw std::invalid_argument("fft_1d: the length " + std::to_string(n) + " is not a power of two");
    // Bit-reversal permutation.
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) std::swap(data[i * stride], data[j * stride]);
    }
    // Butterflies of growing span; each twiddle from the library's cos and sin, not by recurrence, so the
    // rounding error stays O(log n) ulp.
    const double s = static_cast<double>(static_cast<int>(sign));
    for (std::size_t span = 1; span < n; span <<= 1) {
        const double step = s * M_PI / static_cast<double>(span);
        for (std::size_t k = 0; k < span; ++k) {
            const std::complex<double> w(std::cos(step * static_cast<double>(k)), std::sin(step * static_cast<double>(k)));
            for (std::size_t start = k; start < n; start += 2 * span) {
                std::complex<double>& a = data[start * stride];
                std::complex<double>& b = data[(start + span) * stride];
                const std::complex<double> t = w * b;
                b = a - t;
                a += t;
            }
        }
    }
}

void fft_3d(std::vector<std::complex<double>>& a, std::size_t l0, std::size_t l1, std::size_t l2, FftSign sign) {
    if (a.size() != l0 * l1 * l2) throw std::invalid_argument("fft_3d: the array's size does not match its shape");
    for (std::size_t k = 0; k < l2; ++k)
        for (std::size_t j = 0; j < l1; ++j) fft_1d(a.data() + l0 * (j + l1 * k), l0, 1, sign);
    for (std::size_t k = 0; k < l2; ++k)
        for (std::size_t i = 0; i < l0; ++i) fft_1d(a.data() + i + l0 * l1 * k, l1, l0, sign);
    for (std::size_t j = 0; j < l1; ++j)
        for (std::size_t i = 0; i < l0; ++i) fft_1d(a.data() + i + l0 * j, l2, l0 * l1, sign);
}

// [bluestein-begin]
void fft_1d_any(std::complex<double>* data, std::size_t n, std::size_t stride, FftSign sign) {
    if (n == 0) throw std::invalid_argument("fft_1d_any: a transform of no values");
    if (is_power_of_two(n)) return fft_1d(data, n, stride, sign);
    // X_k = Σ_j a_j e^{s2πi jk/n} = c_k Σ_j (a_j c_j) conj(c_{k−j}) with c_j = e^{sπi j²/n}, since
    // 2jk = j² + k² − (k − j)²: a linear convolution of length 2n − 1, done cyclically in m ≥ 2n − 1 points.
    const double s = static_cast<double>(static_cast<int>(sign));
    std::size_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    std::vector<std::complex<double>> chirp(n), u(m, 0.0), v(m, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
        const std::size_t j2 = j * j % (2 * n);  // e^{sπi j²/n} has period 2n in j²
        chirp[j] = std::polar(1.0, s * M_PI * static_cast<double>(j2) / static_cast<double>(n));
    }
    for (std::size_t j = 0; j < n; ++j) u[j] = data[j * stride] * chirp[j];
    v[0] = std::conj(chirp[0]);
    for (std::size_t j = 1; j < n; ++j) v[j] = v[m - j] = std::conj(chirp[j]);
    fft_1d(u.data(), m, 1, FftSign::forward);
    fft_1d(v.data(), m, 1, FftSign::forward);
    for (std::size_t i = 0; i < m; ++i) u[i] *= v[i];
    fft_1d(u.data(), m, 1, FftSign::inverse);
    const double scale = 1.0 / static_cast<double>(m);
    for (std::size_t k = 0; k < n; ++k) data[k * stride] = chirp[k] * u[k] * scale;
}
// [bluestein-end]

void fft_3d_any(std::vector<std::complex<double>>& a, std::size_t l0, std::size_t l1, std::size_t l2, FftSign sign) {
    if (a.size() != l0 * l1 * l2) throw std::invalid_argument("fft_3d_any: the array's size does not match its shape");
    for (std::size_t k = 0; k < l2; ++k)
        for (std::size_t j = 0; j < l1; ++j) fft_1d_any(a.data() + l0 * (j + l1 * k), l0, 1, sign);
    for (std::size_t k = 0; k < l2; ++k)
        for (std::size_t i = 0; i < l0; ++i) fft_1d_any(a.data() + i + l0 * l1 * k, l1, l0, sign);
    for (std::size_t j = 0; j < l1; ++j)
        for (std::size_t i = 0; i < l0; ++i) fft_1d_any(a.data() + i + l0 * j, l2, l0 * l1, sign);
}

}  // namespace kirk_hwu::recon
