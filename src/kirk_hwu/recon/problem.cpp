#include "kirk_hwu/recon/problem.hpp"

#include <cmath>
#include <stdexcept>

namespace kirk_hwu::recon {

ReconShape recon_shape(Size size) {
    switch (size) {
        case Size::tiny: return {8, 128};
        case Size::small: return {16, 256};
        case Size::medium: return {32, 1024};
        case Size::full: return {128, 782};
    }
    throw std::logic_error("recon_shape: unknown size");
}

std::vector<Ellipsoid> head_phantom() {
    // The 3-D Shepp-Logan ellipsoids (Kak and Slaney, table 3.2 extended to 3-D), on [−1, 1]³ scaled by ½
    // into the field of view; values of the modified form.
    const double deg = pi / 180;
    const std::vector<Ellipsoid> unit = {
        {0, 0, 0, 0.69, 0.92, 0.90, 0, 1.0},
        {0, -0.0184, 0, 0.6624, 0.874, 0.88, 0, -0.8},
        {0.22, 0, -0.25, 0.11, 0.31, 0.22, -18 * deg, -0.2},
        {-0.22, 0, -0.25, 0.16, 0.41, 0.21, 18 * deg, -0.2},
        {0, 0.35, -0.25, 0.21, 0.25, 0.35, 0, 0.1},
        {0, 0.1, -0.25, 0.046, 0.046, 0.046, 0, 0.2},
        {-0.08, -0.605, -0.25, 0.046, 0.023, 0.02, 0, 0.1},
        {0, -0.1, -0.25, 0.046, 0.046, 0.046, 0, 0.2},
        {0, -0.605, -0.25, 0.023, 0.023, 0.023, 0, 0.1},
        {0.06, -0.605, -0.25, 0.046, 0.023, 0.02, 0, 0.1},
    };
    std::vector<Ellipsoid> out;
    for (Ellipsoid e : unit) {
        e.cx *= 0.5, e.cy *= 0.5, e.cz *= 0.5, e.ax *= 0.5, e.ay *= 0.5, e.az *= 0.5;
        out.push_back(e);
    }
    return out;
}

void set_grid_positions(MriInput& in, int g) {
    const std::size_t n = static_cast<std::size_t>(g) * g * g;
    in.grid = g;
    in.x.resize(n), in.y.resize(n), in.z.resize(n);
    for (int l = 0; l < g; ++l)
        for (int j = 0; j < g; ++j)
            for (int i = 0; i < g; ++i) {
                const std::size_t v = static_cast<std::size_t>(i) + static_cast<std::size_t>(g) * (j + static_cast<std::size_t>(g) * l);
                in.x[v] = static_cast<float>((i - g / 2) / static_cast<double>(g));
                in.y[v] = static_cast<float>((j - g / 2) / static_cast<double>(g));
                in.z[v] = static_cast<float>((l - g / 2) / static_cast<double>(g));
            }
}

ReconProblem make_recon_problem(ReconShape shape, const std::vector<Ellipsoid>& phantom) {
    if (shape.grid < 2 || shape.grid % 2 != 0 || shape.spokes < 1)
        throw std::invalid_argument("make_recon_problem: the grid must be even and at least 2, with at least one spoke");
    ReconProblem p;
    p.shape = shape;
    const int g = shape.grid;
    const double volume = static_cast<double>(g) * g * g;
    set_grid_positions(p.fhd, g);
    set_grid_positions(p.q, 2 * g);
    // The phantom at the voxel centres.
    p.truth.assign(p.fhd.voxels(), 0.0);
    for (std::size_t n = 0; n < p.fhd.voxels(); ++n)
        for (const Ellipsoid& e : phantom)
            if (inside(e, p.fhd.x[n], p.fhd.y[n], p.fhd.z[n])) p.truth[n] += e.value;
    // Spokes: directions on a Fibonacci spiral over the upper hemisphere.
    const double golden = pi * (3 - std::sqrt(5.0));
    for (int s = 0; s < shape.spokes; ++s) {
        const double cz = (s + 0.5) / shape.spokes;
        const double rho = std::sqrt(1 - cz * cz);
        const double ux = rho * std::cos(golden * s), uy = rho * std::sin(golden * s), uz = cz;
        for (int j = 0; j < g; ++j) {
            const double r = j - g / 2 + 0.5;
            const float kx = static_cast<float>(r * ux), ky = static_cast<float>(r * uy), kz = static_cast<float>(r * uz);
            // The shell |k| ∈ [|r| − ½, |r| + ½] shared by the 2·spokes half-lines.
            const double a = std::fabs(r) - 0.5, b = std::fabs(r) + 0.5;
            const double w = 4 * pi / 3 * (b * b * b - a * a * a) / (2.0 * shape.spokes) / volume;
            double re = 0, im = 0;
            for (const Ellipsoid& e : phantom) {
                double er, ei;
                ellipsoid_transform(e, kx, ky, kz, &er, &ei);
                re += er, im += ei;
            }
            const std::complex<double> d(volume * re, volume * im);
            const double root = std::sqrt(w);
            p.weight.push_back(w);
            p.data.push_back(d);
            for (MriInput* in : {&p.fhd, &p.q}) {
                const float scale = in == &p.q ? 2.0f : 1.0f;  // exact in float
                in->kx.push_back(scale * kx), in->ky.push_back(scale * ky), in->kz.push_back(scale * kz);
                in->phi_r.push_back(static_cast<float>(root));
                in->phi_i.push_back(0.0f);
                in->d_r.push_back(in == &p.q ? 0.0f : static_cast<float>(root * d.real()));
                in->d_i.push_back(in == &p.q ? 0.0f : static_cast<float>(root * d.imag()));
            }
        }
    }
    return p;
}

}  // namespace kirk_hwu::recon
