#include "ryoo/cpu/elimination.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "ryoo/core/matrix.hpp"
#include "ryoo/elimination_math.hpp"

namespace ryoo {

LinearSystem dominant_system(int n, std::uint64_t seed) {
    if (n < 2 || n > 32768) throw std::invalid_argument("system size " + std::to_string(n) + " outside 2..32768");
    LinearSystem s;
    s.n = n;
    s.ld = round_up(n + 1, 32);
    s.a.assign(static_cast<std::size_t>(n) * s.ld, 0.0f);
    const std::vector<float> values = random_vector(static_cast<std::size_t>(n) * n, seed);
    for (int i = 0; i < n; ++i) {
        double b = 0;
        for (int j = 0; j < n; ++j) {
            float v = values[static_cast<std::size_t>(i) * n + j];
            if (i == j) v += static_cast<float>(n);
            s.at(i, j) = v;
            b += v;
        }
        s.at(i, n) = static_cast<float>(b);
    }
    return s;
}

void saxpy_cpu(std::size_t count, float alpha, const float* x, float* y) {
    for (std::size_t i = 0; i < count; ++i) y[i] = saxpy_element(alpha, x[i], y[i]);
}

void eliminate_cpu(LinearSystem& s) {
    const int n = s.n;
    for (int k = 0; k + 1 < n; ++k) {
        const float pivot = s.at(k, k);
        const float* pivot_row = &s.at(k, k + 1);
        for (int i = k + 1; i < n; ++i) {
            const float l = elimination_multiplier(s.at(i, k), pivot);
            saxpy_cpu(static_cast<std::size_t>(n - k), -l, pivot_row, &s.at(i, k + 1));
        }
    }
}

std::vector<float> back_substitute(const LinearSystem& e) {
    const int n = e.n;
    std::vector<float> x(n);
    for (int i = n - 1; i >= 0; --i) {
        float acc = e.at(i, n);
        for (int j = n - 1; j > i; --j) acc = fmaf(-e.at(i, j), x[j], acc);
        x[i] = acc / e.at(i, i);
    }
    return x;
}

double scaled_residual(const LinearSystem& s, const std::vector<float>& x) {
    const int n = s.n;
    double r = 0, a_norm = 0, x_norm = 0, b_norm = 0;
    for (int i = 0; i < n; ++i) {
        double sum = 0, row = 0;
        for (int j = 0; j < n; ++j) {
            sum += static_cast<double>(s.at(i, j)) * x[j];
            row += std::fabs(static_cast<double>(s.at(i, j)));
        }
        r = std::max(r, std::fabs(sum - s.at(i, n)));
        a_norm = std::max(a_norm, row);
        x_norm = std::max(x_norm, std::fabs(static_cast<double>(x[i])));
        b_norm = std::max(b_norm, std::fabs(static_cast<double>(s.at(i, n))));
    }
    return r / (0x1p-24 * (a_norm * x_norm + b_norm) * n);
}

}  // namespace ryoo
