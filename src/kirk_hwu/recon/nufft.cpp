#include "kirk_hwu/recon/nufft.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "kirk_hwu/recon/fft.hpp"
#include "kirk_hwu/recon/nufft_math.hpp"
#include "kirk_hwu/recon/recon_math.hpp"

namespace kirk_hwu::recon {

namespace {
/// @p v in the shortest form (%g) for a message.
std::string text(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", v);
    return buffer;
}
}  // namespace

// [nufft-grid-begin]
int nufft_width(double tolerance, double sigma) {
    if (!(tolerance > 0 && tolerance < 1)) throw std::invalid_argument("nufft_width: the tolerance must lie in (0, 1)");
    if (!(sigma > 1)) throw std::invalid_argument("nufft_width: the oversampling must exceed 1");
    const double w = std::ceil(std::log(10.0 / tolerance) / (pi * std::sqrt(1.0 - 1.0 / sigma)));
    return static_cast<int>(std::min<double>(1000, std::max(2.0, w)));
}

std::size_t next_smooth_size(std::size_t n) {
    for (std::size_t m = std::max<std::size_t>(n + (n % 2), 2);; m += 2) {
        std::size_t r = m;
        for (std::size_t f : {2, 3, 5, 7})
            while (r % f == 0) r /= f;
        if (r == 1) return m;
    }
}

NufftGrid nufft_grid(int image, const NufftSettings& s) {
    if (image < 2 || image % 2 != 0) throw std::invalid_argument("nufft_grid: the image edge must be even and at least 2");
    if (!(s.oversampling >= 1.25 && s.oversampling <= 4))
        throw std::invalid_argument("nufft_grid: the oversampling must lie in [1.25, 4], got " + text(s.oversampling));
    if (s.width != 0 && (s.width < 2 || s.width > nufft_max_width))
        throw std::invalid_argument("nufft_grid: the kernel width must lie in [2, " + std::to_string(nufft_max_width) + "]");
    NufftGrid g;
    g.image = image;
    g.grid = static_cast<int>(next_smooth_size(static_cast<std::size_t>(std::ceil(s.oversampling * image))));
    g.width = s.width ? s.width : nufft_width(s.tolerance, g.sigma());
    if (g.width > nufft_max_width)
        throw std::invalid_argument("nufft_grid: a tolerance of " + text(s.tolerance) + " needs a kernel " +
                                    std::to_string(g.width) + " cells wide at an oversampling of " + text(g.sigma()) +
                                    ", more than " + std::to_string(nufft_max_width) + ": oversample more or ask less");
    g.tolerance = s.width ? 0.0 : s.tolerance;
    if (g.width >= g.grid) throw std::invalid_argument("nufft_grid: the kernel is wider than the grid");
    // The kernel's transform must stay well away from zero over the image (it is divided by): with Beatty's β
    // it has no zero there once W²(1 − 1/σ) > 0.8; twice that keeps the factor bounded.
    if (g.width * g.width * (1.0 - 1.0 / g.sigma()) <= 1.6)
        throw std::invalid_argument("nufft_grid: a kernel " + std::to_string(g.width) + " cells wide is too narrow for an "
                                    "oversampling of " + text(g.sigma()) + " (its transform vanishes inside the image)");
    g.beta = kaiser_bessel_beta(g.width, g.sigma());
    return g;
}

std::vector<double> nufft_deapodisation(const NufftGrid& g) {
    std::vector<double> out(static_cast<std::size_t>(g.image));
    for (int n = -g.image / 2; n < g.image / 2; ++n)
        // φ̂(ξ) = ∫ KB(t) e^{−2πitξ} dt over grid cells, ξ = n / L: the transform of recon_math.hpp with the
        // kernel's width in cells (σ = 1 there).
        out[static_cast<std::size_t>(n + g.image / 2)] =
            1.0 / kaiser_bessel_transform(static_cast<double>(n) / g.grid, g.width, 1.0, g.beta);
    return out;
}
// [nufft-grid-end]

Nufft::Nufft(const NufftGrid& grid, const std::vector<double>& kx, const std::vector<double>& ky,
             const std::vector<double>& kz)
    : grid_(grid), deapodise_(nufft_deapodisation(grid)) {
    if (ky.size() != kx.size() || kz.size() != kx.size()) throw std::invalid_argument("Nufft: the k arrays differ in length");
    const double scale = static_cast<double>(grid.grid) / grid.image;  // cycles per field of view to grid cells
    for (std::size_t m = 0; m < kx.size(); ++m) {
        ux_.push_back(kx[m] * scale);
        uy_.push_back(ky[m] * scale);
        uz_.push_back(kz[m] * scale);
    }
}

namespace {

/// The grid index of image index @p i (0 … N₁−1, position i − N₁/2) on the L-point grid: (i − N₁/2) mod L.
std::size_t image_to_grid(int i, const NufftGrid& g) { return static_cast<std::size_t>(nufft_wrap(i - g.image / 2, g.grid)); }

}  // namespace

// [nufft-adjoint-begin]
std::vector<std::complex<double>> Nufft::adjoint(const std::vector<std::complex<double>>& c) const {
    if (c.size() != samples()) throw std::invalid_argument("Nufft::adjoint: the values do not match the samples");
    const int l = grid_.grid, w = grid_.width, n1 = grid_.image;
    const std::size_t ls = static_cast<std::size_t>(l);
    std::vector<std::complex<double>> h(ls * ls * ls, 0.0);
    // Spread: H_p += c_m φ(u_m − p) for the W³ points p around each sample (periodic).
    for (std::size_t m = 0; m < samples(); ++m) {
        int first[3] = {nufft_first(ux_[m], w), nufft_first(uy_[m], w), nufft_first(uz_[m], w)};
        double wx[nufft_max_width], wy[nufft_max_width], wz[nufft_max_width];
        nufft_weights(ux_[m], first[0], w, grid_.beta, wx);
        nufft_weights(uy_[m], first[1], w, grid_.beta, wy);
        nufft_weights(uz_[m], first[2], w, grid_.beta, wz);
        for (int c3 = 0; c3 < w; ++c3) {
            const std::size_t pz = static_cast<std::size_t>(nufft_wrap(first[2] + c3, l));
            for (int c2 = 0; c2 < w; ++c2) {
                const std::size_t py = static_cast<std::size_t>(nufft_wrap(first[1] + c2, l));
                const std::complex<double> v = c[m] * (wz[c3] * wy[c2]);
                for (int c1 = 0; c1 < w; ++c1)
                    h[static_cast<std::size_t>(nufft_wrap(first[0] + c1, l)) + ls * (py + ls * pz)] += v * wx[c1];
            }
        }
    }
    // G_j = Σ_p H_p e^{+2πi pj/L}, then f_n = G_{n mod L} / (φ̂(n_x/L) φ̂(n_y/L) φ̂(n_z/L)).
    fft_3d_any(h, ls, ls, ls, FftSign::inverse);
    std::vector<std::complex<double>> f(static_cast<std::size_t>(n1) * n1 * n1);
    for (int k = 0; k < n1; ++k)
        for (int j = 0; j < n1; ++j)
            for (int i = 0; i < n1; ++i)
                f[static_cast<std::size_t>(i) + static_cast<std::size_t>(n1) * (j + static_cast<std::size_t>(n1) * k)] =
                    h[image_to_grid(i, grid_) + ls * (image_to_grid(j, grid_) + ls * image_to_grid(k, grid_))] *
                    (deapodise_[i] * deapodise_[j] * deapodise_[k]);
    return f;
}
// [nufft-adjoint-end]

// [nufft-forward-begin]
std::vector<std::complex<double>> Nufft::forward(const std::vector<std::complex<double>>& f) const {
    const int l = grid_.grid, w = grid_.width, n1 = grid_.image;
    const std::size_t ls = static_cast<std::size_t>(l);
    if (f.size() != static_cast<std::size_t>(n1) * n1 * n1) throw std::invalid_argument("Nufft::forward: the image does not match the grid");
    // The transpose of the adjoint's steps in reverse order: deapodise into the zeroed grid, forward FFT, and
    // interpolate c_m = Σ_p φ(u_m − p) H_p with the same weights.
    std::vector<std::complex<double>> h(ls * ls * ls, 0.0);
    for (int k = 0; k < n1; ++k)
        for (int j = 0; j < n1; ++j)
            for (int i = 0; i < n1; ++i)
                h[image_to_grid(i, grid_) + ls * (image_to_grid(j, grid_) + ls * image_to_grid(k, grid_))] =
                    f[static_cast<std::size_t>(i) + static_cast<std::size_t>(n1) * (j + static_cast<std::size_t>(n1) * k)] *
                    (deapodise_[i] * deapodise_[j] * deapodise_[k]);
    fft_3d_any(h, ls, ls, ls, FftSign::forward);
    std::vector<std::complex<double>> c(samples());
    for (std::size_t m = 0; m < samples(); ++m) {
        int first[3] = {nufft_first(ux_[m], w), nufft_first(uy_[m], w), nufft_first(uz_[m], w)};
        double wx[nufft_max_width], wy[nufft_max_width], wz[nufft_max_width];
        nufft_weights(ux_[m], first[0], w, grid_.beta, wx);
        nufft_weights(uy_[m], first[1], w, grid_.beta, wy);
        nufft_weights(uz_[m], first[2], w, grid_.beta, wz);
        std::complex<double> sum = 0;
        for (int c3 = 0; c3 < w; ++c3) {
            const std::size_t pz = static_cast<std::size_t>(nufft_wrap(first[2] + c3, l));
            for (int c2 = 0; c2 < w; ++c2) {
                const std::size_t py = static_cast<std::size_t>(nufft_wrap(first[1] + c2, l));
                std::complex<double> row = 0;
                for (int c1 = 0; c1 < w; ++c1)
                    row += h[static_cast<std::size_t>(nufft_wrap(first[0] + c1, l)) + ls * (py + ls * pz)] * wx[c1];
                sum += row * (wz[c3] * wy[c2]);
            }
        }
        c[m] = sum;
    }
    return c;
}
// [nufft-forward-end]

}  // namespace kirk_hwu::recon
