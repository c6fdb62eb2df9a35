#include "munch/cpu/matmul.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace munch::cpu {

// [matmul-ikj-begin]
void matmul_ikj(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, std::size_t n) {
    c.assign(n * n, 0.0f);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < n; ++k) {
            const float r = a[i * n + k];
            float* row = &c[i * n];
            const float* brow = &b[k * n];
            for (std::size_t j = 0; j < n; ++j) row[j] += r * brow[j];
        }
}
// [matmul-ikj-end]

// [matmul-openmp-begin]
void matmul_openmp(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, std::size_t n,
                   int threads) {
    c.assign(n * n, 0.0f);
    const auto rows = static_cast<long long>(n);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long long i = 0; i < rows; ++i) {
        const auto ii = static_cast<std::size_t>(i);
        for (std::size_t k = 0; k < n; ++k) {
            const float r = a[ii * n + k];
            float* row = &c[ii * n];
            const float* brow = &b[k * n];
            for (std::size_t j = 0; j < n; ++j) row[j] += r * brow[j];
        }
    }
}
// [matmul-openmp-end]

std::vector<float> matmul_input(std::size_t n, std::uint64_t seed) {
    // SplitMix64: a fixed sequence on every platform; the top 24 bits give a float in [-1, 1) exactly.
    std::uint64_t state = seed;
    std::vector<float> m(n * n);
    for (auto& v : m) {
        state += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        v = static_cast<float>(static_cast<double>(z >> 40) / 8388608.0 - 1.0);
    }
    return m;
}

double gamma_float(std::size_t k) {
    const double ku = static_cast<double>(k) * std::ldexp(1.0, -24);
    return ku / (1.0 - ku);
}

MatmulVerdict check_matmul(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                           std::size_t n, int threads, double budget) {
    MatmulVerdict v;
    const double nd = static_cast<double>(n);
    std::vector<std::size_t> rows;
    if (nd * nd * nd <= budget) {
        for (std::size_t i = 0; i < n; ++i) rows.push_back(i);
        v.checked = "all";
    } else {
        const auto count = std::clamp<std::size_t>(static_cast<std::size_t>(budget / (nd * nd)), 8, n);
        for (std::size_t s = 0; s < count; ++s) rows.push_back(s * (n - 1) / (count - 1));
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        v.checked = std::to_string(rows.size()) + " of " + std::to_string(n) + " rows";
    }
    v.rows = rows.size();
    const double g = gamma_float(n);
    std::vector<double> ratio(rows.size(), 0.0), abs_err(rows.size(), 0.0);
    std::vector<long long> bad(rows.size(), -1);
    const auto count = static_cast<long long>(rows.size());
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (long long s = 0; s < count; ++s) {
        const std::size_t i = rows[static_cast<std::size_t>(s)];
        std::vector<double> ref(n, 0.0), mag(n, 0.0);
        for (std::size_t k = 0; k < n; ++k) {
            const double r = a[i * n + k];
            for (std::size_t j = 0; j < n; ++j) {
                ref[j] += r * static_cast<double>(b[k * n + j]);
                mag[j] += std::fabs(r) * std::fabs(static_cast<double>(b[k * n + j]));
            }
        }
        for (std::size_t j = 0; j < n; ++j) {
            const double err = std::fabs(static_cast<double>(c[i * n + j]) - ref[j]);
            const double bound = g * mag[j];
            // A bound of zero (a zero row or column) admits an exact result only; NaN fails.
            const double r = bound > 0 ? err / bound : (err == 0 ? 0.0 : INFINITY);
            auto& slot = ratio[static_cast<std::size_t>(s)];
            slot = std::max(slot, std::isnan(r) ? static_cast<double>(INFINITY) : r);
            abs_err[static_cast<std::size_t>(s)] = std::max(abs_err[static_cast<std::size_t>(s)], std::isnan(err) ? INFINITY : err);
            if (!(err <= bound) && bad[static_cast<std::size_t>(s)] < 0) bad[static_cast<std::size_t>(s)] = static_cast<long long>(j);
        }
    }
    for (std::size_t s = 0; s < rows.size(); ++s) {
        v.max_ratio = std::max(v.max_ratio, ratio[s]);
        v.max_abs_err = std::max(v.max_abs_err, abs_err[s]);
        if (bad[s] >= 0 && v.valid) {
            v.valid = false;
            const auto j = static_cast<std::size_t>(bad[s]);
            char text[160];
            std::snprintf(text, sizeof text, "C[%zu][%zu] = %.9g is out of its bound gamma_%zu (|A||B|)_ij", rows[s], j,
                          static_cast<double>(c[rows[s] * n + j]), n);
            v.first_failure = text;
        }
    }
    return v;
}

}  // namespace munch::cpu
