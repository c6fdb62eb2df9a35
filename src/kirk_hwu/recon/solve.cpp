#include "kirk_hwu/recon/solve.hpp"

#include <cmath>
#include <stdexcept>

#include "harness/threads.hpp"
#include "kirk_hwu/pair_math.hpp"
#include "kirk_hwu/recon/fft.hpp"
#include "kirk_hwu/recon/recon_math.hpp"

namespace kirk_hwu::recon {

namespace {

std::complex<double> dot(const ComplexVector& a, const ComplexVector& b) {
    std::complex<double> s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += std::conj(a[i]) * b[i];
    return s;
}

std::size_t cube(int g) { return static_cast<std::size_t>(g) * g * g; }

}  // namespace

ComplexVector forward_direct(const MriInput& in, const ComplexVector& image, int threads) {
    if (image.size() != in.voxels()) throw std::invalid_argument("forward_direct: the image does not match the grid");
    ComplexVector out(in.samples());
    harness::parallel_for(in.samples(), threads, [&](std::size_t m) {
        std::complex<double> s = 0;
        for (std::size_t n = 0; n < in.voxels(); ++n) {
            const double e = mri_phase<double>(in.kx[m], in.ky[m], in.kz[m], in.x[n], in.y[n], in.z[n]);
            s += std::complex<double>(std::cos(e), -std::sin(e)) * image[n];
        }
        out[m] = std::complex<double>(in.phi_r[m], in.phi_i[m]) * s;
    }, "kirk_hwu");
    return out;
}

ComplexVector adjoint_direct(const MriInput& in, const ComplexVector& samples, int threads) {
    if (samples.size() != in.samples()) throw std::invalid_argument("adjoint_direct: the data do not match the samples");
    ComplexVector out(in.voxels());
    harness::parallel_for(in.voxels(), threads, [&](std::size_t n) {
        std::complex<double> s = 0;
        for (std::size_t m = 0; m < in.samples(); ++m) {
            const double e = mri_phase<double>(in.kx[m], in.ky[m], in.kz[m], in.x[n], in.y[n], in.z[n]);
            s += std::complex<double>(in.phi_r[m], -static_cast<double>(in.phi_i[m])) * samples[m] *
                 std::complex<double>(std::cos(e), std::sin(e));
        }
        out[n] = s;
    }, "kirk_hwu");
    return out;
}

ToeplitzKernel toeplitz_kernel(int grid, const std::vector<double>& q) {
    const int l = 2 * grid;
    const std::size_t total = cube(l);
    if (q.size() != 2 * total) throw std::invalid_argument("toeplitz_kernel: Q does not cover the doubled grid");
    ToeplitzKernel k;
    k.grid = grid;
    k.spectrum.assign(total, 0.0);
    for (int c = 0; c < l; ++c)
        for (int b = 0; b < l; ++b)
            for (int a = 0; a < l; ++a) {
                const std::size_t from = static_cast<std::size_t>(a) + static_cast<std::size_t>(l) * (b + static_cast<std::size_t>(l) * c);
                const std::size_t to = static_cast<std::size_t>(circulant_index(a, grid)) +
                                       static_cast<std::size_t>(l) * (circulant_index(b, grid) + static_cast<std::size_t>(l) * circulant_index(c, grid));
                k.spectrum[to] = {q[from], q[total + from]};
            }
    fft_3d(k.spectrum, l, l, l, FftSign::forward);
    const double scale = 1.0 / static_cast<double>(total);
    for (auto& v : k.spectrum) v *= scale;
    return k;
}

ComplexVector toeplitz_apply(const ToeplitzKernel& kernel, const ComplexVector& image) {
    const int g = kernel.grid, l = 2 * g;
    if (image.size() != cube(g)) throw std::invalid_argument("toeplitz_apply: the image does not match the kernel");
    ComplexVector pad(cube(l), 0.0);
    for (int c = 0; c < g; ++c)
        for (int b = 0; b < g; ++b)
            for (int a = 0; a < g; ++a)
                pad[a + static_cast<std::size_t>(l) * (b + static_cast<std::size_t>(l) * c)] =
                    image[a + static_cast<std::size_t>(g) * (b + static_cast<std::size_t>(g) * c)];
    fft_3d(pad, l, l, l, FftSign::forward);
    for (std::size_t i = 0; i < pad.size(); ++i) pad[i] *= kernel.spectrum[i];
    fft_3d(pad, l, l, l, FftSign::inverse);
    ComplexVector out(image.size());
    for (int c = 0; c < g; ++c)
        for (int b = 0; b < g; ++b)
            for (int a = 0; a < g; ++a)
                out[a + static_cast<std::size_t>(g) * (b + static_cast<std::size_t>(g) * c)] =
                    pad[a + static_cast<std::size_t>(l) * (b + static_cast<std::size_t>(l) * c)];
    return out;
}

ComplexVector roughness_apply(int grid, const ComplexVector& image) {
    if (image.size() != cube(grid)) throw std::invalid_argument("roughness_apply: the image does not match the grid");
    ComplexVector out(image.size(), 0.0);
    const std::size_t strides[3] = {1, static_cast<std::size_t>(grid), static_cast<std::size_t>(grid) * grid};
    for (int c = 0; c < grid; ++c)
        for (int b = 0; b < grid; ++b)
            for (int a = 0; a < grid; ++a) {
                const std::size_t n = a + strides[1] * b + strides[2] * c;
                const int at[3] = {a, b, c};
                for (int axis = 0; axis < 3; ++axis) {
                    if (at[axis] > 0) out[n] += image[n] - image[n - strides[axis]];
                    if (at[axis] < grid - 1) out[n] += image[n] - image[n + strides[axis]];
                }
            }
    return out;
}

// [cg-begin]
CgResult conjugate_gradient(const std::function<ComplexVector(const ComplexVector&)>& apply, const ComplexVector& b,
                            const CgSettings& settings, const std::function<void(int, const ComplexVector&)>& observe) {
    CgResult out;
    out.x.assign(b.size(), 0.0);
    ComplexVector r = b, p = b;
    const double b_norm = std::sqrt(dot(b, b).real());
    if (b_norm == 0) return out;
    double rr = dot(r, r).real();
    for (int k = 1; k <= settings.max_iterations; ++k) {
        const ComplexVector ap = apply(p);
        const double curvature = dot(p, ap).real();
        if (!(curvature > 0)) throw std::runtime_error("conjugate_gradient: the operator is not positive definite (pᴴAp ≤ 0)");
        const double alpha = rr / curvature;
        for (std::size_t i = 0; i < b.size(); ++i) {
            out.x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        const double rr_next = dot(r, r).real();
        // f(x) = ½ xᴴAx − Re bᴴx = −½ Re(bᴴx) − ½ Re(xᴴr), since Ax = b − r.
        const double f = -0.5 * dot(b, out.x).real() - 0.5 * dot(out.x, r).real();
        out.history.push_back({k, std::sqrt(rr_next) / b_norm, f});
        if (observe) observe(k, out.x);
        if (std::sqrt(rr_next) <= settings.tolerance * b_norm) break;
        const double beta = rr_next / rr;
        for (std::size_t i = 0; i < b.size(); ++i) p[i] = r[i] + beta * p[i];
        rr = rr_next;
    }
    return out;
}
// [cg-end]

// [gridding-begin]
ComplexVector gridding(const MriInput& in, const GriddingSettings& s) {
    const int g = in.grid, big = s.oversampling * g;
    if (s.oversampling < 1 || s.width <= 0 || !is_power_of_two(static_cast<std::size_t>(big)))
        throw std::invalid_argument("gridding: the oversampled grid must have a power-of-two edge and the kernel a positive width");
    const double beta = kaiser_bessel_beta(s.width, s.oversampling);
    ComplexVector grid(cube(big), 0.0);
    const int reach = static_cast<int>(std::floor(s.width / 2));
    for (std::size_t m = 0; m < in.samples(); ++m) {
        const std::complex<double> mu(mu_real<double>(in.phi_r[m], in.phi_i[m], in.d_r[m], in.d_i[m]),
                                      mu_imag<double>(in.phi_r[m], in.phi_i[m], in.d_r[m], in.d_i[m]));
        // Grid coordinates of the sample: σk + σN₁/2, so that k = 0 falls on point σN₁/2.
        const double u[3] = {s.oversampling * static_cast<double>(in.kx[m]) + big / 2,
                             s.oversampling * static_cast<double>(in.ky[m]) + big / 2,
                             s.oversampling * static_cast<double>(in.kz[m]) + big / 2};
        int first[3];
        double w[3][16];
        for (int a = 0; a < 3; ++a) {
            first[a] = static_cast<int>(std::floor(u[a])) - reach;
            for (int t = 0; t <= 2 * reach + 1; ++t) w[a][t] = kaiser_bessel(std::fabs(u[a] - (first[a] + t)), s.width, beta);
        }
        for (int tc = 0; tc <= 2 * reach + 1; ++tc)
            for (int tb = 0; tb <= 2 * reach + 1; ++tb)
                for (int ta = 0; ta <= 2 * reach + 1; ++ta) {
                    // The FFT's index of grid point p is (p − σN₁/2) mod σN₁ (frequency 0 first).
                    const auto wrap = [&](int p) { return static_cast<std::size_t>(((p - big / 2) % big + big) % big); };
                    grid[wrap(first[0] + ta) + big * (wrap(first[1] + tb) + big * wrap(first[2] + tc))] +=
                        mu * (w[0][ta] * w[1][tb] * w[2][tc]);
                }
    }
    fft_3d(grid, big, big, big, FftSign::inverse);
    ComplexVector image(in.voxels());
    const double per_point = 1.0 / (static_cast<double>(s.oversampling) * s.oversampling * s.oversampling);
    for (int c = 0; c < g; ++c)
        for (int b = 0; b < g; ++b)
            for (int a = 0; a < g; ++a) {
                const int at[3] = {a - g / 2, b - g / 2, c - g / 2};
                double deapodise = 1;
                std::size_t idx[3];
                for (int axis = 0; axis < 3; ++axis) {
                    deapodise *= kaiser_bessel_transform(at[axis] / static_cast<double>(g), s.width, s.oversampling, beta);
                    idx[axis] = static_cast<std::size_t>((at[axis] + big) % big);
                }
                image[a + static_cast<std::size_t>(g) * (b + static_cast<std::size_t>(g) * c)] =
                    grid[idx[0] + big * (idx[1] + big * idx[2])] * (per_point / deapodise);
            }
    return image;
}
// [gridding-end]

std::vector<double> split(const ComplexVector& image) {
    std::vector<double> out;
    out.reserve(2 * image.size());
    for (const auto& v : image) out.push_back(v.real());
    for (const auto& v : image) out.push_back(v.imag());
    return out;
}

ErrorStats image_error(const ComplexVector& image, const std::vector<double>& truth) {
    std::vector<double> ref(truth);
    ref.resize(2 * truth.size(), 0.0);
    return compare(ref, split(image));
}

}  // namespace kirk_hwu::recon
