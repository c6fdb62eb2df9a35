// The non-uniform FFT on the CPU (src/kirk_hwu/recon/nufft.hpp) against direct sums written out here: the
// FFT of any length against the DFT, the grid's rules, the adjoint and the forward within their stated tolerance
// for every oversampling, their error falling as the kernel widens, the forward the exact transpose of the
// adjoint (⟨T₂x, y⟩ = ⟨x, T₁y⟩), and the iterative reconstruction with the NUFFT pair against the one with the
// direct sums (Toeplitz).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kirk_hwu/recon/fft.hpp"
#include "kirk_hwu/recon/nufft.hpp"
#include "kirk_hwu/recon/pipeline.hpp"

namespace {

using namespace kirk_hwu;
using namespace kirk_hwu::recon;
using cd = std::complex<double>;
using CV = std::vector<cd>;

CV random_vector(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    CV v(n);
    for (auto& x : v) x = {normal(rng), normal(rng)};
    return v;
}

double relative_difference(const CV& a, const CV& b) {
    double d = 0, n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += std::norm(a[i] - b[i]), n += std::norm(b[i]);
    return std::sqrt(d / n);
}

/// Random sample positions in cycles per field of view, uniform over [−N₁/2, N₁/2)³.
struct Samples {
    std::vector<double> kx, ky, kz;
};
Samples random_samples(std::size_t m, int image, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-image / 2.0, image / 2.0);
    Samples s;
    for (std::size_t i = 0; i < m; ++i) s.kx.push_back(u(rng)), s.ky.push_back(u(rng)), s.kz.push_back(u(rng));
    return s;
}

/// The direct sums the NUFFT approximates, in double: type 1 f_n = Σ_m c_m e^{+2πi k_m·x_n} and type 2
/// c_m = Σ_n f_n e^{−2πi k_m·x_n}, x_n = (i − N/2, j − N/2, l − N/2) / N at index i + N (j + N l).
CV direct_adjoint(const Samples& s, int image, const CV& c) {
    CV f(static_cast<std::size_t>(image) * image * image, 0.0);
    for (int l = 0; l < image; ++l)
        for (int j = 0; j < image; ++j)
            for (int i = 0; i < image; ++i) {
                cd sum = 0;
                for (std::size_t m = 0; m < c.size(); ++m) {
                    const double phase = 2 * M_PI * (s.kx[m] * (i - image / 2) + s.ky[m] * (j - image / 2) + s.kz[m] * (l - image / 2)) / image;
                    sum += c[m] * std::polar(1.0, phase);
                }
                f[static_cast<std::size_t>(i) + static_cast<std::size_t>(image) * (j + static_cast<std::size_t>(image) * l)] = sum;
            }
    return f;
}

CV direct_forward(const Samples& s, int image, const CV& f) {
    CV c(s.kx.size(), 0.0);
    for (std::size_t m = 0; m < c.size(); ++m)
        for (int l = 0; l < image; ++l)
            for (int j = 0; j < image; ++j)
                for (int i = 0; i < image; ++i) {
                    const double phase = -2 * M_PI * (s.kx[m] * (i - image / 2) + s.ky[m] * (j - image / 2) + s.kz[m] * (l - image / 2)) / image;
                    c[m] += f[static_cast<std::size_t>(i) + static_cast<std::size_t>(image) * (j + static_cast<std::size_t>(image) * l)] *
                            std::polar(1.0, phase);
                }
    return c;
}

constexpr int image = 16;

const Samples& samples() {
    static const Samples s = random_samples(1000, image, 5);
    return s;
}
const CV& coefficients() {
    static const CV c = random_vector(samples().kx.size(), 6);
    return c;
}
const CV& exact_adjoint() {
    static const CV f = direct_adjoint(samples(), image, coefficients());
    return f;
}
const CV& test_image() {
    static const CV f = random_vector(static_cast<std::size_t>(image) * image * image, 7);
    return f;
}
const CV& exact_forward() {
    static const CV c = direct_forward(samples(), image, test_image());
    return c;
}

Nufft make(const NufftSettings& s) { return Nufft(nufft_grid(image, s), samples().kx, samples().ky, samples().kz); }

}  // namespace

TEST(ReconFftAnyLength, MatchesTheDirectDftInBothDirections) {
    for (std::size_t n : {1u, 3u, 5u, 6u, 12u, 20u, 24u, 35u, 100u, 128u}) {
        const CV x = random_vector(n, 3 + static_cast<unsigned>(n));
        for (FftSign sign : {FftSign::forward, FftSign::inverse}) {
            CV fast = x;
            fft_1d_any(fast.data(), n, 1, sign);
            CV slow(n, 0.0);
            for (std::size_t k = 0; k < n; ++k)
                for (std::size_t j = 0; j < n; ++j)
                    slow[k] += x[j] * std::polar(1.0, static_cast<int>(sign) * 2 * M_PI * static_cast<double>(j * k % n) / static_cast<double>(n));
            EXPECT_LT(relative_difference(fast, slow), 1e-13) << "n " << n;
        }
    }
    CV y = random_vector(6 * 5 * 7, 9), z = y;
    fft_3d_any(z, 6, 5, 7, FftSign::forward);
    fft_3d_any(z, 6, 5, 7, FftSign::inverse);
    for (auto& v : z) v /= 6.0 * 5 * 7;
    EXPECT_LT(relative_difference(z, y), 1e-14);
}

TEST(NufftGrid, SmoothSizesWidthsAndRefusals) {
    EXPECT_EQ(next_smooth_size(1), 2u);
    EXPECT_EQ(next_smooth_size(17), 18u);   // 2 · 3²
    EXPECT_EQ(next_smooth_size(33), 36u);   // 34 = 2 · 17 is not
    EXPECT_EQ(next_smooth_size(97), 98u);   // 2 · 7²
    EXPECT_EQ(next_smooth_size(101), 108u); // 102, 104, 106 have the factors 17, 13, 53
    EXPECT_EQ(next_smooth_size(256), 256u);
    // Tighter tolerances need wider kernels, more oversampling narrower ones.
    EXPECT_LT(nufft_width(1e-3, 2.0), nufft_width(1e-6, 2.0));
    EXPECT_LT(nufft_width(1e-6, 2.0), nufft_width(1e-9, 2.0));
    EXPECT_LT(nufft_width(1e-6, 2.0), nufft_width(1e-6, 1.25));
    EXPECT_EQ(nufft_width(1e-6, 2.0), 8);  // ⌈ln(10⁷) / (π √½)⌉ = ⌈7.26⌉
    const NufftGrid g = nufft_grid(128, {1e-6, 2.0, 0});
    EXPECT_EQ(g.grid, 256);
    EXPECT_EQ(g.width, 8);
    EXPECT_EQ(nufft_grid(128, {1e-6, 1.25, 0}).grid, 160);
    EXPECT_THROW(nufft_grid(15, {}), std::invalid_argument);
    EXPECT_THROW(nufft_grid(16, {1e-6, 1.1, 0}), std::invalid_argument);
    EXPECT_THROW(nufft_grid(16, {1e-6, 2.0, 17}), std::invalid_argument);
    EXPECT_THROW(nufft_grid(16, {1e-6, 1.25, 2}), std::invalid_argument);  // its transform vanishes in the image
    EXPECT_THROW(nufft_grid(16, {0.0, 2.0, 0}), std::invalid_argument);
    EXPECT_THROW(nufft_grid(16, {1e-12, 1.25, 0}), std::invalid_argument);  // would need a kernel of 19 cells
}

TEST(Nufft, AdjointAndForwardMeetTheirToleranceForEveryOversampling) {
    for (double sigma : {2.0, 1.5, 1.25})
        for (double tolerance : {1e-3, 1e-6, 1e-9}) {
            if (nufft_width(tolerance, next_smooth_size(static_cast<std::size_t>(std::ceil(sigma * image))) / double(image)) > 16) {
                // Beyond the widest kernel: refused, not run at a width that cannot reach the tolerance.
                EXPECT_THROW(make({tolerance, sigma, 0}), std::invalid_argument) << "sigma " << sigma << ", tolerance " << tolerance;
                continue;
            }
            const Nufft op = make({tolerance, sigma, 0});
            const double adjoint = relative_difference(op.adjoint(coefficients()), exact_adjoint());
            const double forward = relative_difference(op.forward(test_image()), exact_forward());
            EXPECT_LE(adjoint, tolerance) << "sigma " << sigma << " (grid " << op.grid().grid << ", width " << op.grid().width << ")";
            EXPECT_LE(forward, tolerance) << "sigma " << sigma << " (grid " << op.grid().grid << ", width " << op.grid().width << ")";
            EXPECT_GT(adjoint, tolerance * 1e-4) << "an error far below the tolerance: the width rule is not what runs";
        }
}

TEST(Nufft, TheErrorFallsAsTheKernelWidens) {
    // At width 12 the kernel's aliasing error e^{−πW√(1 − 1/σ)} is about 2·10⁻¹² (σ = 2) and 5·10⁻⁸ (σ = 1.25).
    for (const auto& [sigma, at_12] : {std::pair{2.0, 1e-10}, std::pair{1.25, 1e-6}}) {
        double previous = 1;
        for (int width = 3; width <= 12; ++width) {
            const double e = relative_difference(make({1e-6, sigma, width}).adjoint(coefficients()), exact_adjoint());
            EXPECT_LT(e, previous) << "sigma " << sigma << ", width " << width;
            previous = e;
        }
        EXPECT_LT(previous, at_12) << "sigma " << sigma;
    }
}

TEST(Nufft, TheForwardIsTheAdjointsTranspose) {
    // ⟨T₂ x, y⟩ = ⟨x, T₁ y⟩ for any x, y: the two are built from the same weights, grid and deapodisation, so this
    // holds to rounding whatever the NUFFT's own error.
    for (double sigma : {2.0, 1.25}) {
        const Nufft op = make({1e-3, sigma, 0});
        const CV x = random_vector(test_image().size(), 11), y = random_vector(samples().kx.size(), 12);
        const CV t2x = op.forward(x), t1y = op.adjoint(y);
        cd left = 0, right = 0;
        double scale = 0;
        for (std::size_t m = 0; m < y.size(); ++m) left += std::conj(t2x[m]) * y[m], scale += std::norm(t2x[m]);
        for (std::size_t n = 0; n < x.size(); ++n) right += std::conj(x[n]) * t1y[n];
        double ny = 0;
        for (const auto& v : y) ny += std::norm(v);
        EXPECT_LT(std::abs(left - right) / std::sqrt(scale * ny), 1e-13) << "sigma " << sigma;
    }
}

TEST(NufftReconstruction, MatchesTheDirectSumsReconstructionAndItsImageError) {
    const ReconProblem p = make_recon_problem(recon_shape(Size::tiny), head_phantom());
    ReconSettings s;
    s.cg.max_iterations = 20;
    s.cg.tolerance = 0;
    s.threads = 2;
    const ReconOutcome direct = reconstruct_cpu(p, s);
    s.use_nufft = true;
    s.nufft = {1e-9, 2.0, 0};
    const ReconOutcome nufft = reconstruct_cpu(p, s);
    EXPECT_EQ(nufft.nufft.width, nufft_width(1e-9, nufft.nufft.sigma()));
    // The same solve with operators within 10⁻⁹ of the direct ones: the images agree far below the image's error.
    EXPECT_LT(relative_difference(nufft.iterative, direct.iterative), 1e-6);
    const double e_direct = image_error(direct.iterative, p.truth).rel_l2, e_nufft = image_error(nufft.iterative, p.truth).rel_l2;
    EXPECT_LE(e_nufft, e_direct * (1 + 1e-6));
    // A coarse NUFFT changes the image by about its tolerance, not more.
    s.nufft = {1e-3, 2.0, 0};
    const ReconOutcome coarse = reconstruct_cpu(p, s);
    const double d = relative_difference(coarse.iterative, direct.iterative);
    EXPECT_LT(d, 1e-2);
    EXPECT_GT(d, 1e-8);
}
