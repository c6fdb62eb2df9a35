#include "ryoo/core/product_check.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ryoo {

// [bound-begin]
double gamma(long long k, double u) {
    const double ku = static_cast<double>(k) * u;
    if (k < 0 || ku >= 1) throw std::invalid_argument("gamma: k u = " + std::to_string(ku) + " is not below 1");
    return ku / (1 - ku);
}

double bound_factor(long long k, double u, double input_u) {
    const double g = gamma(k, u);
    const double g64 = gamma(k, double_unit_roundoff);
    // Input rounding, then the sum of the rounded products (their magnitudes grow by (1 + v)^2), then the
    // reference's own error; the magnitudes are themselves double sums of positive terms (relative error
    // g64), which the last factor covers.
    const double grow = (1 + input_u) * (1 + input_u);
    return ((2 * input_u + input_u * input_u) + g * grow + g64) * (1 + 2 * g64);
}
// [bound-end]

std::string CheckResult::describe() const {
    char line[256];
    std::snprintf(line, sizeof line, "%lld elements, %lld over the bound; worst (%d, %d): error %.3g, bound %.3g, ratio %.3g",
                  checked, failed, worst_i, worst_j, worst_error, worst_bound, worst_ratio);
    return line;
}

ProductReference::ProductReference(const Matrix& a, const Matrix& b, long long sample_size, std::uint64_t seed)
    : n_(a.n) {
    if (a.n != b.n) throw std::invalid_argument("product reference: matrices of different sizes");
    if (sample_size < 4) throw std::invalid_argument("product reference: sample size below 4");
    const long long all = static_cast<long long>(n_) * n_;
    if (all <= sample_size) {
        for (int i = 0; i < n_; ++i)
            for (int j = 0; j < n_; ++j) rows_.push_back(i), cols_.push_back(j);
    } else {
        const int last = n_ - 1;
        rows_ = {0, 0, last, last};
        cols_ = {0, last, 0, last};
        std::uint64_t s = seed;
        auto next = [&s] {
            std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            return z ^ (z >> 31);
        };
        while (static_cast<long long>(rows_.size()) < sample_size) {
            rows_.push_back(static_cast<int>(next() % static_cast<std::uint64_t>(n_)));
            cols_.push_back(static_cast<int>(next() % static_cast<std::uint64_t>(n_)));
        }
    }
    // B transposed once, so that each reference dot product reads two rows.
    std::vector<float> bt(static_cast<std::size_t>(n_) * n_);
    for (int i = 0; i < n_; ++i)
        for (int j = 0; j < n_; ++j) bt[static_cast<std::size_t>(j) * n_ + i] = b.at(i, j);
    value_.resize(rows_.size());
    magnitude_.resize(rows_.size());
    for (std::size_t e = 0; e < rows_.size(); ++e) {
        const float* ar = &a.data[static_cast<std::size_t>(rows_[e]) * n_];
        const float* bc = &bt[static_cast<std::size_t>(cols_[e]) * n_];
        double v = 0, m = 0;
        for (int k = 0; k < n_; ++k) {
            const double p = static_cast<double>(ar[k]) * static_cast<double>(bc[k]);  // exact: 24 x 24 bits
            v += p;
            m += std::fabs(p);
        }
        value_[e] = v;
        magnitude_[e] = m;
    }
}

CheckResult ProductReference::check(const float* c, int ldc, double u, double input_u) const {
    if (ldc < n_) throw std::invalid_argument("product check: leading dimension below n");
    const double factor = bound_factor(n_, u, input_u);
    CheckResult r;
    for (std::size_t e = 0; e < rows_.size(); ++e) {
        const double got = c[static_cast<std::size_t>(rows_[e]) * ldc + cols_[e]];
        const double error = std::fabs(got - value_[e]);
        const double bound = factor * magnitude_[e];
        ++r.checked;
        const bool finite = std::isfinite(got);
        const double ratio = !finite ? INFINITY : bound > 0 ? error / bound : (error > 0 ? INFINITY : 0);
        if (!finite || error > bound) ++r.failed;
        if (ratio > r.worst_ratio || r.worst_i < 0) {
            r.worst_ratio = ratio;
            r.worst_i = rows_[e];
            r.worst_j = cols_[e];
            r.worst_error = error;
            r.worst_bound = bound;
        }
    }
    return r;
}

}  // namespace ryoo
