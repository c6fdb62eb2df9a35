#include "kirk_hwu/inputs.hpp"

#include <cmath>
#include <stdexcept>

namespace kirk_hwu {

Size parse_size(const std::string& text) {
    if (text == "tiny") return Size::tiny;
    if (text == "small") return Size::small;
    if (text == "medium") return Size::medium;
    if (text == "full") return Size::full;
    throw std::invalid_argument("unknown size '" + text + "'; the valid sizes are: tiny, small, medium, full");
}

std::string size_name(Size size) {
    switch (size) {
        case Size::tiny: return "tiny";
        case Size::small: return "small";
        case Size::medium: return "medium";
        case Size::full: return "full";
    }
    return "?";
}

// A seed per size and computation, so that no two inputs share a stream.
static std::uint64_t seed_of(Size size, int computation) { return 1000u * static_cast<unsigned>(computation) + static_cast<unsigned>(size) + 1u; }

MriShape mri_shape(Size size) {
    switch (size) {
        case Size::tiny: return {8, 300};
        case Size::small: return {32, 3072};
        case Size::medium: return {64, 20000};
        case Size::full: return {128, 100000};
    }
    throw std::logic_error("mri_shape: unknown size");
}

MriInput make_mri_input(Size size) { return make_mri_input(mri_shape(size), seed_of(size, 1)); }

MriInput make_mri_input(MriShape shape, std::uint64_t seed) {
    if (shape.grid < 1 || shape.samples < 1) throw std::invalid_argument("make_mri_input: empty shape");
    MriInput in;
    in.grid = shape.grid;
    const int g = shape.grid;
    const std::size_t n = static_cast<std::size_t>(g) * g * g;
    in.x.resize(n), in.y.resize(n), in.z.resize(n);
    // Voxel n = i + g (j + g l) sits at ((i − g/2)/g, (j − g/2)/g, (l − g/2)/g): exact in float.
    for (int l = 0; l < g; ++l)
        for (int j = 0; j < g; ++j)
            for (int i = 0; i < g; ++i) {
                const std::size_t v = static_cast<std::size_t>(i) + static_cast<std::size_t>(g) * (j + static_cast<std::size_t>(g) * l);
                in.x[v] = static_cast<float>((i - g / 2) / static_cast<double>(g));
                in.y[v] = static_cast<float>((j - g / 2) / static_cast<double>(g));
                in.z[v] = static_cast<float>((l - g / 2) / static_cast<double>(g));
            }
    SplitMix64 rng(seed);
    const double half = g / 2.0;
    for (int m = 0; m < shape.samples; ++m) {
        // One sample's seven values in a fixed order: kx, ky, kz, rφ, iφ, rd, id.
        in.kx.push_back(static_cast<float>(rng.uniform(-half, half)));
        in.ky.push_back(static_cast<float>(rng.uniform(-half, half)));
        in.kz.push_back(static_cast<float>(rng.uniform(-half, half)));
        in.phi_r.push_back(static_cast<float>(rng.uniform(-1, 1)));
        in.phi_i.push_back(static_cast<float>(rng.uniform(-1, 1)));
        in.d_r.push_back(static_cast<float>(rng.uniform(-1, 1)));
        in.d_i.push_back(static_cast<float>(rng.uniform(-1, 1)));
    }
    return in;
}

CoulombShape coulomb_shape(Size size) {
    switch (size) {
        case Size::tiny: return {16, 16, 2, 100};
        case Size::small: return {64, 64, 4, 1000};
        case Size::medium: return {128, 128, 8, 10000};
        case Size::full: return {512, 512, 32, 40000};
    }
    throw std::logic_error("coulomb_shape: unknown size");
}

CoulombInput make_coulomb_input(Size size) { return make_coulomb_input(coulomb_shape(size), seed_of(size, 2)); }

// Distance from @p a to the nearest lattice coordinate 0, h, ..., (count − 1) h along one axis.
static double axis_gap(double a, double h, int count) {
    double i = std::round(a / h);
    if (i < 0) i = 0;
    if (i > count - 1) i = count - 1;
    return std::fabs(a - i * h);
}

CoulombInput make_coulomb_input(CoulombShape shape, std::uint64_t seed) {
    if (shape.gx < 1 || shape.gy < 1 || shape.gz < 1 || shape.atoms < 1)
        throw std::invalid_argument("make_coulomb_input: empty shape");
    CoulombInput in;
    in.gx = shape.gx, in.gy = shape.gy, in.gz = shape.gz;
    in.spacing = 0.1f;
    const double h = in.spacing;
    // Atoms in a box 10 % larger than the lattice on every side; an atom closer than h/10 to a lattice
    // point is drawn again (the sum is singular there).
    const int counts[3] = {shape.gx, shape.gy, shape.gz};
    SplitMix64 rng(seed);
    while (in.atom_count() < static_cast<std::size_t>(shape.atoms)) {
        double p[3];
        for (int a = 0; a < 3; ++a) {
            const double extent = (counts[a] - 1) * h;
            p[a] = rng.uniform(-0.1 * extent - h, 1.1 * extent + h);
        }
        const double q = rng.uniform(-1, 1);
        double gap2 = 0;
        for (int a = 0; a < 3; ++a) gap2 += axis_gap(static_cast<float>(p[a]), h, counts[a]) * axis_gap(static_cast<float>(p[a]), h, counts[a]);
        if (gap2 < (h / 10) * (h / 10)) continue;
        for (int a = 0; a < 3; ++a) in.atoms.push_back(static_cast<float>(p[a]));
        in.atoms.push_back(static_cast<float>(q));
    }
    return in;
}

}  // namespace kirk_hwu
