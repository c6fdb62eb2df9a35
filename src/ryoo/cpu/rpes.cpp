#include "ryoo/cpu/rpes.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "ryoo/rpes_math.hpp"

namespace ryoo {
namespace {

/// splitmix64 as doubles uniform in [0, 1).
struct Uniform {
    std::uint64_t state;
    double next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
    }
};

/// The s normalisation (2 alpha / pi)^(3/4).
double norm(double alpha) { return std::pow(2 * alpha / std::numbers::pi, 0.75); }

}  // namespace

std::vector<RpesPrimitive> rpes_molecule(int edge, int per_atom, double spacing) {
    if (edge < 1 || edge > 16) throw std::invalid_argument("RPES molecule: lattice edge " + std::to_string(edge) + "; expected 1 to 16");
    if (per_atom < 1 || per_atom > 12)
        throw std::invalid_argument("RPES molecule: " + std::to_string(per_atom) + " primitives per atom; expected 1 to 12");
    if (!(spacing > 0)) throw std::invalid_argument("RPES molecule: the lattice spacing must be positive");
    std::vector<RpesPrimitive> out;
    const double centre = 0.5 * (edge - 1);
    for (int i = 0; i < edge; ++i)
        for (int j = 0; j < edge; ++j)
            for (int l = 0; l < edge; ++l)
                for (int k = 0; k < per_atom; ++k)
                    out.push_back({(i - centre) * spacing, (j - centre) * spacing, (l - centre) * spacing, 0.1 * std::pow(3.0, k)});
    return out;
}

RpesPairs rpes_pairs(const std::vector<RpesPrimitive>& m, std::uint64_t seed) {
    RpesPairs out;
    Uniform g{seed};
    const double root2_pi54 = std::sqrt(2.0) * std::pow(std::numbers::pi, 1.25);
    for (std::size_t a = 0; a < m.size(); ++a)
        for (std::size_t b = a; b < m.size(); ++b) {
            const RpesPrimitive &A = m[a], &B = m[b];
            const double p = A.alpha + B.alpha;
            const double ab2 = (A.x - B.x) * (A.x - B.x) + (A.y - B.y) * (A.y - B.y) + (A.z - B.z) * (A.z - B.z);
            out.px.push_back((A.alpha * A.x + B.alpha * B.x) / p);
            out.py.push_back((A.alpha * A.y + B.alpha * B.y) / p);
            out.pz.push_back((A.alpha * A.z + B.alpha * B.z) / p);
            out.p.push_back(p);
            out.k.push_back(norm(A.alpha) * norm(B.alpha) * std::exp(-A.alpha * B.alpha * ab2 / p) * root2_pi54 / p);
            out.density.push_back(0.5 + 0.5 * (1 - g.next()));
        }
    return out;
}

RpesPacked rpes_pack(const RpesPairs& pairs) {
    RpesPacked out;
    for (int i = 0; i < pairs.size(); ++i) {
        for (double v : {pairs.px[i], pairs.py[i], pairs.pz[i], pairs.p[i]}) out.geometry.push_back(static_cast<float>(v));
        out.k.push_back(static_cast<float>(pairs.k[i]));
        out.kd.push_back(static_cast<float>(pairs.k[i] * pairs.density[i]));
    }
    return out;
}

double boys_f0(double t) {
    if (t < 0) throw std::invalid_argument("boys_f0: negative argument");
    if (t < 1e-6) return 1 - t / 3 + t * t / 10;
    return 0.5 * std::sqrt(std::numbers::pi / t) * std::erf(std::sqrt(t));
}

std::vector<float> rpes_fit_table() {
    constexpr int n = rpes_degree + 1;
    std::vector<float> table(rpes_table_size, 0.0f);
    for (int k = 0; k < rpes_intervals; ++k) {
        // Interpolation at the Chebyshev nodes of [0, 1]: solve the Vandermonde system (Gaussian elimination
        // with partial pivoting, double precision) for the monomial coefficients in x = T - k.
        std::array<std::array<double, n + 1>, n> a{};
        for (int i = 0; i < n; ++i) {
            const double x = 0.5 - 0.5 * std::cos((2 * i + 1) * std::numbers::pi / (2 * n));
            double power = 1;
            for (int j = 0; j < n; ++j, power *= x) a[i][j] = power;
            a[i][n] = boys_f0(k + x);
        }
        for (int c = 0; c < n; ++c) {
            int pivot = c;
            for (int r = c + 1; r < n; ++r)
                if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
            std::swap(a[c], a[pivot]);
            for (int r = c + 1; r < n; ++r) {
                const double f = a[r][c] / a[c][c];
                for (int j = c; j <= n; ++j) a[r][j] -= f * a[c][j];
            }
        }
        std::array<double, n> coef{};
        for (int c = n - 1; c >= 0; --c) {
            double v = a[c][n];
            for (int j = c + 1; j < n; ++j) v -= a[c][j] * coef[j];
            coef[c] = v / a[c][c];
        }
        for (int j = 0; j < n; ++j) table[k * rpes_stride + j] = static_cast<float>(coef[j]);
    }
    return table;
}

double rpes_integral(const RpesPrimitive& a, const RpesPrimitive& b, const RpesPrimitive& c, const RpesPrimitive& d) {
    const auto d2 = [](double x1, double y1, double z1, double x2, double y2, double z2) {
        return (x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2) + (z1 - z2) * (z1 - z2);
    };
    const double p = a.alpha + b.alpha, q = c.alpha + d.alpha;
    const double px = (a.alpha * a.x + b.alpha * b.x) / p, py = (a.alpha * a.y + b.alpha * b.y) / p, pz = (a.alpha * a.z + b.alpha * b.z) / p;
    const double qx = (c.alpha * c.x + d.alpha * d.x) / q, qy = (c.alpha * c.y + d.alpha * d.y) / q, qz = (c.alpha * c.z + d.alpha * d.z) / q;
    const double kab = std::exp(-a.alpha * b.alpha / p * d2(a.x, a.y, a.z, b.x, b.y, b.z));
    const double kcd = std::exp(-c.alpha * d.alpha / q * d2(c.x, c.y, c.z, d.x, d.y, d.z));
    const double t = p * q / (p + q) * d2(px, py, pz, qx, qy, qz);
    return norm(a.alpha) * norm(b.alpha) * norm(c.alpha) * norm(d.alpha) * 2 * std::pow(std::numbers::pi, 2.5) /
           (p * q * std::sqrt(p + q)) * kab * kcd * boys_f0(t);
}

std::vector<double> rpes_rows_fp64(const RpesPairs& pairs, const std::vector<int>& rows) {
    std::vector<double> out;
    out.reserve(rows.size());
    for (int r : rows) {
        double sum = 0;
        for (int c = 0; c < pairs.size(); ++c) {
            const double dx = pairs.px[r] - pairs.px[c], dy = pairs.py[r] - pairs.py[c], dz = pairs.pz[r] - pairs.pz[c];
            const double s = pairs.p[r] + pairs.p[c];
            const double t = pairs.p[r] * pairs.p[c] / s * (dx * dx + dy * dy + dz * dz);
            sum += pairs.k[c] * pairs.density[c] * boys_f0(t) / std::sqrt(s);
        }
        out.push_back(pairs.k[r] * sum);
    }
    return out;
}

std::vector<float> rpes_rows_cpu(const RpesPacked& packed, const std::vector<float>& table, const std::vector<int>& rows) {
    const int m = static_cast<int>(packed.k.size());
    const float* g = packed.geometry.data();
    const auto coef = [&table](int i) { return table[static_cast<std::size_t>(i)]; };
    std::vector<float> out;
    out.reserve(rows.size());
    for (int r : rows) {
        float total = 0;
        for (int c0 = 0; c0 < m; c0 += rpes_chunk) {
            float sum = 0;
            const int c1 = c0 + rpes_chunk < m ? c0 + rpes_chunk : m;
            for (int c = c0; c < c1; ++c)
                sum = fmaf(packed.kd[c], rpes_quartet(g[4 * r], g[4 * r + 1], g[4 * r + 2], g[4 * r + 3], g[4 * c], g[4 * c + 1],
                                                      g[4 * c + 2], g[4 * c + 3], coef),
                           sum);
            total += packed.k[r] * sum;
        }
        out.push_back(total);
    }
    return out;
}

}  // namespace ryoo
