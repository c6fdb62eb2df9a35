// The reconstruction on the CPU: the FFT against a direct DFT, the phantom's analytic transform and the
// gridding kernel's transform against independent quadratures, the adjoint identity, the Toeplitz AᴴA
// against the direct product, conjugate gradients against a dense Cholesky solve, and both
// reconstructions against the phantom and each other.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <algorithm>
#include <array>
#include <random>

#include "kirk_hwu/recon/fft.hpp"
#include "kirk_hwu/recon/pipeline.hpp"

namespace {

using namespace kirk_hwu;
using namespace kirk_hwu::recon;
using cd = std::complex<double>;

ComplexVector random_vector(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    ComplexVector v(n);
    for (auto& x : v) x = {normal(rng), normal(rng)};
    return v;
}

cd dot(const ComplexVector& a, const ComplexVector& b) {
    cd s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += std::conj(a[i]) * b[i];
    return s;
}

double relative_difference(const ComplexVector& a, const ComplexVector& b) {
    double d = 0, n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += std::norm(a[i] - b[i]), n += std::norm(b[i]);
    return std::sqrt(d / n);
}

const ReconProblem& tiny_problem() {
    static const ReconProblem p = make_recon_problem(recon_shape(Size::tiny), head_phantom());
    return p;
}

/// AᴴA through Toeplitz, Q from the FP64 reference on the doubled grid.
const ToeplitzKernel& tiny_kernel() {
    static const ToeplitzKernel k = [] {
        const ReconProblem& p = tiny_problem();
        return toeplitz_kernel(p.shape.grid, mri_reference(p.q, MriOutput::q, spread_subset(p.q.voxels(), p.q.voxels()), 2));
    }();
    return k;
}

}  // namespace

TEST(ReconFft, MatchesTheDirectDftInBothDirections) {
    for (std::size_t n : {1u, 2u, 4u, 16u, 64u}) {
        const ComplexVector x = random_vector(n, 7 + static_cast<unsigned>(n));
        for (FftSign sign : {FftSign::forward, FftSign::inverse}) {
            ComplexVector fast = x;
            fft_1d(fast.data(), n, 1, sign);
            ComplexVector slow(n, 0.0);
            for (std::size_t k = 0; k < n; ++k)
                for (std::size_t j = 0; j < n; ++j)
                    slow[k] += x[j] * std::polar(1.0, static_cast<int>(sign) * 2 * M_PI * static_cast<double>(j * k % n) / static_cast<double>(n));
            EXPECT_LT(relative_difference(fast, slow), 1e-14) << "n " << n;
        }
    }
}

TEST(ReconFft, ThreeDimensionalRoundTripIsTheIdentityTimesTheSize) {
    const ComplexVector x = random_vector(8 * 4 * 16, 3);
    ComplexVector y = x;
    fft_3d(y, 8, 4, 16, FftSign::forward);
    fft_3d(y, 8, 4, 16, FftSign::inverse);
    for (auto& v : y) v /= 8.0 * 4 * 16;
    EXPECT_LT(relative_difference(y, x), 1e-15);
}

TEST(ReconFft, RefusesALengthThatIsNotAPowerOfTwo) {
    ComplexVector x(6);
    EXPECT_THROW(fft_1d(x.data(), 6, 1, FftSign::forward), std::invalid_argument);
}

TEST(ReconPhantom, BallTransformMatchesARadialQuadrature) {
    // ∫_{|x|≤1} e^{−2πi k·x} dx = ∫₀¹ 4π r² sin(2πqr)/(2πqr) dr, by composite Simpson with 2000 panels.
    for (double q : {0.0, 1e-4, 0.3, 1.7, 6.25}) {
        const int panels = 2000;
        double sum = 0;
        for (int i = 0; i <= panels; ++i) {
            const double r = static_cast<double>(i) / panels, u = 2 * M_PI * q * r;
            const double f = 4 * M_PI * r * r * (u == 0 ? 1.0 : std::sin(u) / u);
            sum += f * (i == 0 || i == panels ? 1 : i % 2 ? 4 : 2);
        }
        EXPECT_NEAR(unit_ball_transform(q), sum / (3.0 * panels), 1e-10) << "q " << q;
    }
}

TEST(ReconPhantom, EllipsoidTransformMatchesAVoxelSum) {
    // A rotated, shifted ellipsoid; the transform against a midpoint sum over a 160³ lattice of the unit cube
    // (the boundary's staircase limits the agreement to about 1 % of the volume).
    const Ellipsoid e{0.05, -0.08, 0.03, 0.3, 0.18, 0.22, 0.4, 1.5};
    const int n = 160;
    for (const auto& k : std::vector<std::array<double, 3>>{{0, 0, 0}, {1.3, -0.7, 0.4}, {-2.1, 0.9, 1.6}}) {
        cd sum = 0;
        for (int c = 0; c < n; ++c)
            for (int b = 0; b < n; ++b)
                for (int a = 0; a < n; ++a) {
                    const double x = (a + 0.5) / n - 0.5, y = (b + 0.5) / n - 0.5, z = (c + 0.5) / n - 0.5;
                    if (inside(e, x, y, z)) sum += e.value * std::polar(1.0, -2 * M_PI * (k[0] * x + k[1] * y + k[2] * z));
                }
        sum /= static_cast<double>(n) * n * n;
        double re, im;
        ellipsoid_transform(e, k[0], k[1], k[2], &re, &im);
        const double volume = e.value * 4 * M_PI / 3 * e.ax * e.ay * e.az;
        EXPECT_LT(std::abs(sum - cd(re, im)), 0.01 * volume) << k[0] << " " << k[1] << " " << k[2];
    }
}

TEST(ReconGridding, KaiserBesselTransformMatchesAQuadrature) {
    const double width = 6, sigma = 2, beta = kaiser_bessel_beta(width, sigma), l = width / sigma;
    for (double x : {0.0, 0.13, 0.25, 0.37, 0.5}) {  // the field of view the deapodisation covers
        // ∫_{−L/2}^{L/2} KB(κ) cos(2πκx) dκ, κ in k units (distance in cells = σκ), Simpson with 4000 panels.
        const int panels = 4000;
        double sum = 0;
        for (int i = 0; i <= panels; ++i) {
            const double kappa = -l / 2 + l * i / panels;
            sum += kaiser_bessel(std::fabs(sigma * kappa), width, beta) * std::cos(2 * M_PI * kappa * x) *
                   (i == 0 || i == panels ? 1 : i % 2 ? 4 : 2);
        }
        sum *= l / (3.0 * panels);
        // Simpson converges as h^1.5 here (the kernel's slope is infinite at its edge): 1e-7 is its error.
        EXPECT_NEAR(kaiser_bessel_transform(x, width, sigma, beta) / sum, 1.0, 1e-7) << "x " << x;
    }
}

TEST(ReconOperators, AdjointIdentityHolds) {
    const ReconProblem& p = tiny_problem();
    const ComplexVector x = random_vector(p.voxels(), 11), y = random_vector(p.samples(), 12);
    const cd lhs = dot(forward_direct(p.fhd, x, 2), y), rhs = dot(x, adjoint_direct(p.fhd, y, 2));
    EXPECT_LT(std::abs(lhs - rhs), 1e-12 * std::abs(lhs));
}

TEST(ReconOperators, AdjointOfTheDataIsTheFhdReference) {
    // Aᴴd' by the direct adjoint equals the study's F^H d (μ = conj φ · d'), computed by mri_reference.
    const ReconProblem& p = tiny_problem();
    ComplexVector d(p.samples());
    for (std::size_t m = 0; m < d.size(); ++m) d[m] = {p.fhd.d_r[m], p.fhd.d_i[m]};
    const std::vector<double> fhd = mri_reference(p.fhd, MriOutput::fhd, spread_subset(p.voxels(), p.voxels()), 2);
    const ErrorStats e = compare(fhd, split(adjoint_direct(p.fhd, d, 2)));
    EXPECT_LT(e.rel_l2, 1e-12);
}

TEST(ReconOperators, ToeplitzProductEqualsTheDirectProduct) {
    const ReconProblem& p = tiny_problem();
    for (unsigned seed : {21u, 22u}) {
        const ComplexVector x = random_vector(p.voxels(), seed);
        const ComplexVector direct = adjoint_direct(p.fhd, forward_direct(p.fhd, x, 2), 2);
        EXPECT_LT(relative_difference(toeplitz_apply(tiny_kernel(), x), direct), 1e-11);
    }
}

TEST(ReconOperators, RoughnessIsTheSumOfSquaredDifferences) {
    // xᴴ R x = Σ over neighbouring pairs |x_a − x_b|², counted independently here.
    const int g = 5;
    const ComplexVector x = random_vector(g * g * g, 31);
    double pairs = 0;
    for (int c = 0; c < g; ++c)
        for (int b = 0; b < g; ++b)
            for (int a = 0; a < g; ++a) {
                const int n = a + g * (b + g * c);
                if (a + 1 < g) pairs += std::norm(x[n] - x[n + 1]);
                if (b + 1 < g) pairs += std::norm(x[n] - x[n + g]);
                if (c + 1 < g) pairs += std::norm(x[n] - x[n + g * g]);
            }
    const cd form = dot(x, roughness_apply(g, x));
    EXPECT_NEAR(form.real(), pairs, 1e-12 * pairs);
    EXPECT_NEAR(form.imag(), 0.0, 1e-12 * pairs);
}

namespace {

/// The dense matrix AᴴA + λR of the tiny problem (column by column from the direct operators) and its
/// Cholesky factor, for an independent solve.
struct DenseSystem {
    std::size_t n;
    std::vector<cd> a;  // row-major
    std::vector<cd> chol;
    cd at(std::size_t i, std::size_t j) const { return a[i * n + j]; }
    ComplexVector times(const ComplexVector& x) const {
        ComplexVector y(n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
        return y;
    }
    ComplexVector solve(const ComplexVector& b) const {
        ComplexVector y(b);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t k = 0; k < i; ++k) y[i] -= chol[i * n + k] * y[k];
            y[i] /= chol[i * n + i];
        }
        for (std::size_t i = n; i-- > 0;) {
            for (std::size_t k = i + 1; k < n; ++k) y[i] -= std::conj(chol[k * n + i]) * y[k];
            y[i] /= chol[i * n + i];
        }
        return y;
    }
};

DenseSystem dense_system(const ReconProblem& p, double lambda) {
    // AᴴA = Fᴴ diag(|φ|²) F from the explicit matrix F_mn = e^{−2πi k_m·x_n}, plus λR column by column.
    const MriInput& in = p.fhd;
    const std::size_t n = p.voxels(), m = p.samples();
    std::vector<cd> f(m * n);
    for (std::size_t s = 0; s < m; ++s)
        for (std::size_t v = 0; v < n; ++v)
            f[s * n + v] = std::polar(1.0, -mri_phase<double>(in.kx[s], in.ky[s], in.kz[s], in.x[v], in.y[v], in.z[v]));
    DenseSystem s;
    s.n = n;
    s.a.assign(n * n, 0.0);
    for (std::size_t k = 0; k < m; ++k) {
        const double w = static_cast<double>(in.phi_r[k]) * in.phi_r[k] + static_cast<double>(in.phi_i[k]) * in.phi_i[k];
        for (std::size_t i = 0; i < n; ++i) {
            const cd left = w * std::conj(f[k * n + i]);
            for (std::size_t j = 0; j < n; ++j) s.a[i * n + j] += left * f[k * n + j];
        }
    }
    for (std::size_t j = 0; j < n; ++j) {
        ComplexVector e(n, 0.0);
        e[j] = 1;
        const ComplexVector rough = roughness_apply(p.shape.grid, e);
        for (std::size_t i = 0; i < n; ++i) s.a[i * n + j] += lambda * rough[i];
    }
    s.chol.assign(s.n * s.n, 0.0);
    for (std::size_t i = 0; i < s.n; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            cd sum = s.a[i * s.n + j];
            for (std::size_t k = 0; k < j; ++k) sum -= s.chol[i * s.n + k] * std::conj(s.chol[j * s.n + k]);
            if (i == j) {
                if (!(sum.real() > 0)) throw std::runtime_error("the dense system is not positive definite");
                s.chol[i * s.n + i] = std::sqrt(sum.real());
            } else {
                s.chol[i * s.n + j] = sum / s.chol[j * s.n + j];
            }
        }
    return s;
}

}  // namespace

TEST(ReconConjugateGradient, EnergyNormErrorFallsMonotonicallyToTheDenseSolution) {
    const ReconProblem& p = tiny_problem();
    const double lambda = 1e-2;
    const DenseSystem dense = dense_system(p, lambda);
    ComplexVector b(p.voxels());
    const std::vector<double> fhd = mri_reference(p.fhd, MriOutput::fhd, spread_subset(p.voxels(), p.voxels()), 2);
    for (std::size_t n = 0; n < b.size(); ++n) b[n] = {fhd[n], fhd[b.size() + n]};
    const ComplexVector exact = dense.solve(b);
    const double energy_of_b = dot(b, exact).real();  // bᴴA⁻¹b
    const auto apply = [&](const ComplexVector& x) {
        ComplexVector y = toeplitz_apply(tiny_kernel(), x);
        const ComplexVector r = roughness_apply(p.shape.grid, x);
        for (std::size_t i = 0; i < y.size(); ++i) y[i] += lambda * r[i];
        return y;
    };
    std::vector<double> energy_error;
    CgSettings settings;
    settings.max_iterations = 500;
    settings.tolerance = 1e-10;
    const CgResult result = conjugate_gradient(apply, b, settings, [&](int, const ComplexVector& x) {
        ComplexVector e(x);
        for (std::size_t i = 0; i < e.size(); ++i) e[i] -= exact[i];
        energy_error.push_back(std::sqrt(dot(e, dense.times(e)).real()));
    });
    ASSERT_EQ(energy_error.size(), result.history.size());
    const double start = std::sqrt(energy_of_b);  // ‖x₀ − x*‖_A with x₀ = 0
    double previous = start;
    for (std::size_t k = 0; k < energy_error.size(); ++k) {
        EXPECT_LT(energy_error[k], previous) << "iteration " << k + 1;
        previous = energy_error[k];
        // The recorded quadratic is ½‖e‖²_A − ½ bᴴA⁻¹b.
        EXPECT_NEAR(result.history[k].quadratic, 0.5 * energy_error[k] * energy_error[k] - 0.5 * energy_of_b,
                    1e-9 * energy_of_b);
    }
    EXPECT_LE(result.history.back().residual, 1e-10);
    EXPECT_LT(relative_difference(result.x, exact), 1e-8);
}

TEST(ReconConjugateGradient, RecoversAnImageThatTheModelFitsExactly) {
    // Data made by the forward model itself from a random image, on 2,048 samples drawn uniformly over the
    // whole k-space cube of an 8³ grid (the study's make_mri_input, with φ = 1), so that AᴴA is well
    // conditioned: without a penalty the solve returns that image.
    MriInput in = make_mri_input(MriShape{8, 2048}, 77);
    std::fill(in.phi_r.begin(), in.phi_r.end(), 1.0f);
    std::fill(in.phi_i.begin(), in.phi_i.end(), 0.0f);
    MriInput doubled = in;  // the offsets grid, k doubled, for Q
    set_grid_positions(doubled, 16);
    for (auto* k : {&doubled.kx, &doubled.ky, &doubled.kz})
        for (float& v : *k) v *= 2;
    const ToeplitzKernel kernel =
        toeplitz_kernel(8, mri_reference(doubled, MriOutput::q, spread_subset(doubled.voxels(), doubled.voxels()), 2));
    const ComplexVector truth = random_vector(in.voxels(), 41);
    const ComplexVector b = adjoint_direct(in, forward_direct(in, truth, 2), 2);
    CgSettings settings;
    settings.max_iterations = 300;
    settings.tolerance = 1e-12;
    const CgResult r = conjugate_gradient([&](const ComplexVector& x) { return toeplitz_apply(kernel, x); }, b, settings);
    EXPECT_LE(r.history.back().residual, 1e-12);
    EXPECT_LT(relative_difference(r.x, truth), 1e-9);
}

TEST(ReconGridding, EqualsTheDensityCompensatedAdjointWithinTheKernelsError) {
    // Gridding approximates Aᴴd' = F^H d exactly computed; the error falls fast with the kernel width.
    const ReconProblem& p = tiny_problem();
    const std::vector<double> fhd = mri_reference(p.fhd, MriOutput::fhd, spread_subset(p.voxels(), p.voxels()), 2);
    double previous = 1;
    for (double width : {4.0, 6.0, 8.0}) {
        GriddingSettings s;
        s.width = width;
        const ErrorStats e = compare(fhd, split(gridding(p.fhd, s)));
        EXPECT_LT(e.rel_l2, previous / 20) << "width " << width;
        previous = e.rel_l2;
    }
    EXPECT_LT(previous, 1e-6);
}

TEST(ReconPipeline, BothReconstructionsApproachThePhantomAndEachOther) {
    // The tiny size (8³ voxels, 1,024 samples on 128 spokes) with three large ellipsoids. Bounds: the
    // phantom sampled at the voxel centres has edges that no image band-limited to |k| < 4 reproduces;
    // the measured errors are 0.34 (iterative, λ = 10⁻³, 30 iterations) and 0.53 (gridding, whose radial
    // density compensation is only approximate this coarse). The bounds leave room for rounding, not for
    // a wrong operator: a lost factor or sign gives an error near or above 1.
    const std::vector<Ellipsoid> phantom = {{0, 0, 0, 0.38, 0.3, 0.34, 0.2, 1.0},
                                            {0.1, 0.05, 0, 0.12, 0.16, 0.2, -0.5, 0.5},
                                            {-0.12, -0.06, 0.05, 0.1, 0.08, 0.12, 0, -0.4}};
    const ReconProblem p = make_recon_problem(recon_shape(Size::tiny), phantom);
    ReconSettings s;
    s.lambda = 1e-3;
    s.cg.max_iterations = 30;
    s.threads = 2;
    const ReconOutcome r = reconstruct_cpu(p, s);
    const ErrorStats iterative = image_error(r.iterative, p.truth), gridded = image_error(r.gridded, p.truth);
    EXPECT_LT(iterative.rel_l2, 0.38);
    EXPECT_LT(gridded.rel_l2, 0.58);
    EXPECT_LT(iterative.rel_l2, gridded.rel_l2);  // the solve improves on the density-compensated adjoint
    EXPECT_LT(compare(split(r.iterative), split(r.gridded)).rel_l2, 0.5);
    // The quadratic (energy-norm error) never rises.
    for (std::size_t k = 1; k < r.cg.history.size(); ++k)
        EXPECT_LE(r.cg.history[k].quadratic, r.cg.history[k - 1].quadratic);
    // The direct AᴴA (A, then Aᴴ) gives the same image as the Toeplitz one.
    s.direct = true;
    s.cg.max_iterations = 10;
    const ReconOutcome direct = reconstruct_cpu(p, s);
    s.direct = false;
    const ReconOutcome toeplitz = reconstruct_cpu(p, s);
    EXPECT_LT(relative_difference(direct.iterative, toeplitz.iterative), 1e-10);
}
