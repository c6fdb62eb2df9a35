#include "ryoo/cpu/fdtd.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include "ryoo/fdtd_math.hpp"

namespace ryoo {

FdtdInput fdtd_medium(int nx, int ny, float courant, std::vector<float> eps, std::vector<float> mu) {
    if (nx < 4 || ny < 4)
        throw std::invalid_argument("FDTD medium: " + std::to_string(nx) + " x " + std::to_string(ny) + " cells; expected at least 4 x 4");
    if (!(courant > 0 && courant < 1))
        throw std::invalid_argument("FDTD medium: Courant number " + std::to_string(courant) + "; expected a value in (0, 1)");
    const std::size_t cells = static_cast<std::size_t>(nx) * ny;
    if (eps.size() != cells || mu.size() != cells)
        throw std::invalid_argument("FDTD medium: " + std::to_string(eps.size()) + " permittivities and " + std::to_string(mu.size()) +
                                    " permeabilities; expected one per cell (" + std::to_string(cells) + ")");
    FdtdInput in;
    in.nx = nx;
    in.ny = ny;
    in.courant = courant;
    in.ce.resize(cells);
    in.ch.resize(cells);
    for (std::size_t c = 0; c < cells; ++c) {
        if (!(eps[c] > 0) || !(mu[c] > 0))
            throw std::invalid_argument("FDTD medium: cell " + std::to_string(c) + " has permittivity " + std::to_string(eps[c]) +
                                        " and permeability " + std::to_string(mu[c]) + "; expected both above zero");
        in.ce[c] = courant / eps[c];
        in.ch[c] = courant / mu[c];
    }
    in.eps = std::move(eps);
    in.mu = std::move(mu);
    return in;
}

FdtdInput synthetic_medium(int nx, int ny) {
    const std::size_t cells = static_cast<std::size_t>(nx) * ny;
    std::vector<float> eps(cells, 1.0f), mu(cells, 1.0f);
    for (int y = static_cast<int>(0.3 * ny); y < static_cast<int>(0.7 * ny); ++y)
        for (int x = static_cast<int>(0.55 * nx); x < static_cast<int>(0.75 * nx); ++x) eps[static_cast<std::size_t>(y) * nx + x] = 4.0f;
    FdtdInput in = fdtd_medium(nx, ny, 0.5f, std::move(eps), std::move(mu));
    in.source_x = nx / 4;
    in.source_y = ny / 2;
    return in;
}

FdtdFields zero_fields(const FdtdInput& in) {
    FdtdFields f;
    f.ex.assign(in.cells(), 0.0f);
    f.ey.assign(in.cells(), 0.0f);
    f.hz.assign(in.cells(), 0.0f);
    return f;
}

float fdtd_source(const FdtdInput& in, int step) {
    return static_cast<float>(std::sin(2 * std::numbers::pi * (step + 1) / in.period));
}

void fdtd_step_cpu(const FdtdInput& in, FdtdFields& f, float source) {
    const int nx = in.nx, ny = in.ny;
    float* ex = f.ex.data();
    float* ey = f.ey.data();
    float* hz = f.hz.data();
    const float* ce = in.ce.data();
    const float* ch = in.ch.data();
    for (int y = 0; y < ny; ++y)
        for (int x = 1; x < nx; ++x) {
            const std::size_t c = static_cast<std::size_t>(y) * nx + x;
            ey[c] = fdtd_ey(ey[c], ce[c], hz[c], hz[c - 1]);
        }
    for (int y = 1; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
            const std::size_t c = static_cast<std::size_t>(y) * nx + x;
            ex[c] = fdtd_ex(ex[c], ce[c], hz[c], hz[c - nx]);
        }
    for (int y = 0; y + 1 < ny; ++y)
        for (int x = 0; x + 1 < nx; ++x) {
            const std::size_t c = static_cast<std::size_t>(y) * nx + x;
            hz[c] = fdtd_hz(hz[c], ch[c], ex[c], ex[c + nx], ey[c], ey[c + 1]);
        }
    const int s = in.source_index();
    if (s >= 0) hz[s] += source;
}

double fdtd_energy(const FdtdInput& in, const FdtdFields& f) {
    double e = 0, h = 0;
    for (std::size_t c = 0; c < in.cells(); ++c) {
        const double x = f.ex[c], y = f.ey[c], z = f.hz[c];
        e += in.eps[c] * (x * x + y * y);
        h += in.mu[c] * z * z;
    }
    return 0.5 * (e + h);
}

void fdtd_run_cpu(const FdtdInput& in, FdtdFields& f, int steps, std::vector<double>* energies) {
    for (int t = 0; t < steps; ++t) {
        fdtd_step_cpu(in, f, fdtd_source(in, t));
        if (energies) energies->push_back(fdtd_energy(in, f));
    }
}

}  // namespace ryoo
