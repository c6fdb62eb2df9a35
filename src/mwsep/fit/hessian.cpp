#include "mwsep/fit/hessian.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace mwsep::fit {
namespace {

/// The first 1 + 2n points of every stencil: x, then x + h_i e_i and x - h_i e_i for each i.
Batch diagonal_stencil(const std::vector<double>& x, const std::vector<double>& h) {
    Batch out{x};
    for (std::size_t i = 0; i < x.size(); ++i)
        for (const double s : {1.0, -1.0}) {
            auto p = x;
            p[i] += s * h[i];
            out.push_back(p);
        }
    return out;
}

/// d^2 L / dx_i^2 from the values of diagonal_stencil() (the start of @p f).
double diagonal_curvature(const std::vector<double>& f, const std::vector<double>& h, std::size_t i) {
    return (f[1 + 2 * i] - 2 * f[0] + f[2 + 2 * i]) / (h[i] * h[i]);
}

}  // namespace

Batch hessian_stencil(const std::vector<double>& x, const std::vector<double>& h) {
    const std::size_t n = x.size();
    Batch out = diagonal_stencil(x, h);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            for (const double s : {1.0, -1.0})
                for (const double t : {1.0, -1.0}) {
                    auto p = x;
                    p[i] += s * h[i];
                    p[j] += t * h[j];
                    out.push_back(p);
                }
    return out;
}

std::vector<double> hessian_from_stencil(const std::vector<double>& f, const std::vector<double>& h) {
    const std::size_t n = h.size();
    std::vector<double> H(n * n);
    for (std::size_t i = 0; i < n; ++i) H[i * n + i] = diagonal_curvature(f, h, i);
    std::size_t k = 1 + 2 * n;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j, k += 4) {
            // f(+,+) - f(+,-) - f(-,+) + f(-,-), over 4 h_i h_j
            const double v = (f[k] - f[k + 1] - f[k + 2] + f[k + 3]) / (4 * h[i] * h[j]);
            H[i * n + j] = H[j * n + i] = v;
        }
    return H;
}

std::vector<double> inverse_spd(const std::vector<double>& a, std::size_t n) {
    // a = L L^T, then the inverse column by column from two triangular solves.
    std::vector<double> L(n * n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (std::size_t k = 0; k < j; ++k) d -= L[j * n + k] * L[j * n + k];
        if (!(d > 0) || !std::isfinite(d)) return {};
        L[j * n + j] = std::sqrt(d);
        for (std::size_t i = j + 1; i < n; ++i) {
            double v = a[i * n + j];
            for (std::size_t k = 0; k < j; ++k) v -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = v / L[j * n + j];
        }
    }
    std::vector<double> inv(n * n);
    std::vector<double> y(n);
    for (std::size_t c = 0; c < n; ++c) {
        for (std::size_t i = 0; i < n; ++i) {  // L y = e_c
            double v = i == c ? 1.0 : 0.0;
            for (std::size_t k = 0; k < i; ++k) v -= L[i * n + k] * y[k];
            y[i] = v / L[i * n + i];
        }
        for (std::size_t i = n; i-- > 0;) {  // L^T z = y
            double v = y[i];
            for (std::size_t k = i + 1; k < n; ++k) v -= L[k * n + i] * inv[k * n + c];
            inv[i * n + c] = v / L[i * n + i];
        }
    }
    return inv;
}

SymmetricEigen symmetric_eigen(const std::vector<double>& a, std::size_t n) {
    std::vector<double> m = a;
    std::vector<double> v(n * n, 0.0);  // columns: the eigenvectors
    for (std::size_t i = 0; i < n; ++i) v[i * n + i] = 1;
    const auto off_diagonal = [&] {
        double s = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                if (i != j) s += m[i * n + j] * m[i * n + j];
        return s;
    };
    double scale = 0;
    for (double x : m) scale += x * x;
    // Each sweep rotates every off-diagonal pair (p, q) to zero; the off-diagonal mass falls quadratically
    // once it is small, so a few sweeps reach rounding.
    for (int sweep = 0; sweep < 100 && off_diagonal() > 1e-30 * scale; ++sweep)
        for (std::size_t p = 0; p < n; ++p)
            for (std::size_t q = p + 1; q < n; ++q) {
                const double apq = m[p * n + q];
                if (apq == 0) continue;
                const double theta = (m[q * n + q] - m[p * n + p]) / (2 * apq);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (std::size_t k = 0; k < n; ++k) {  // columns p and q of m, then rows p and q
                    const double mkp = m[k * n + p], mkq = m[k * n + q];
                    m[k * n + p] = c * mkp - s * mkq;
                    m[k * n + q] = s * mkp + c * mkq;
                }
                for (std::size_t k = 0; k < n; ++k) {
                    const double mpk = m[p * n + k], mqk = m[q * n + k];
                    m[p * n + k] = c * mpk - s * mqk;
                    m[q * n + k] = s * mpk + c * mqk;
                }
                for (std::size_t k = 0; k < n; ++k) {
                    const double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return m[x * n + x] < m[y * n + y]; });
    SymmetricEigen out;
    for (const std::size_t k : order) {
        out.values.push_back(m[k * n + k]);
        std::vector<double> e(n);
        for (std::size_t i = 0; i < n; ++i) e[i] = v[i * n + k];
        out.vectors.push_back(std::move(e));
    }
    return out;
}

std::vector<double> steps_of_one_sigma(BatchEvaluator& evaluator, const std::vector<double>& x,
                                       const std::vector<double>& width, double step_fraction, std::size_t stars,
                                       std::size_t& evaluations) {
    const std::size_t n = x.size();
    std::vector<double> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = step_fraction * width[i];
    const Batch diagonal = diagonal_stencil(x, h);
    const auto f = evaluator.evaluate(diagonal);
    evaluations += diagonal.size();
    const double per_unit = static_cast<double>(stars) * std::numbers::ln10;
    for (std::size_t i = 0; i < n; ++i) {
        const double curvature = diagonal_curvature(f, h, i);
        // A maximum along i: the step becomes that parameter's own 1-sigma width 1 / sqrt(N ln10 |H_ii|),
        // kept within [1e-7, 0.1] of the box. Elsewhere (no curvature seen, or the wrong sign) the
        // first step stays, and the Hessian will say that this is no maximum.
        if (curvature < 0 && std::isfinite(curvature))
            h[i] = std::clamp(1.0 / std::sqrt(per_unit * -curvature), 1e-7 * width[i], 0.1 * width[i]);
    }
    return h;
}

Uncertainty uncertainty_at(BatchEvaluator& evaluator, const std::vector<double>& x, const std::vector<double>& width,
                           double step_fraction, std::size_t stars) {
    const std::size_t n = x.size();
    Uncertainty u;
    u.steps = steps_of_one_sigma(evaluator, x, width, step_fraction, stars, u.evaluations);
    const Batch stencil = hessian_stencil(x, u.steps);
    const auto f = evaluator.evaluate(stencil);
    u.evaluations += stencil.size();
    u.hessian = hessian_from_stencil(f, u.steps);
    u.sigma.assign(n, std::numeric_limits<double>::quiet_NaN());
    // L is the mean of log10 probabilities: ln likelihood = N ln(10) L, and its Fisher information -N ln(10) H.
    const double scale = -static_cast<double>(stars) * std::numbers::ln10;
    std::vector<double> fisher(n * n);
    for (std::size_t k = 0; k < n * n; ++k) fisher[k] = scale * u.hessian[k];
    // Where the point is no maximum, the Fisher matrix in units of the steps says along which combination.
    std::vector<double> scaled(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) scaled[i * n + j] = u.steps[i] * fisher[i * n + j] * u.steps[j];
    const SymmetricEigen eigen = symmetric_eigen(scaled, n);
    u.scaled_fisher_eigenvalues = eigen.values;
    if (n > 0) u.weakest_direction = eigen.vectors.front();
    u.scaled_fisher_eigenvectors = eigen.vectors;
    u.covariance = inverse_spd(fisher, n);
    u.positive_definite = !u.covariance.empty();
    if (u.positive_definite)
        for (std::size_t i = 0; i < n; ++i) u.sigma[i] = std::sqrt(u.covariance[i * n + i]);
    return u;
}

}  // namespace mwsep::fit
