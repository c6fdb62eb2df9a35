#include "ryoo/cpu/lbm.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "ryoo/lbm_math.hpp"

namespace ryoo {

LbmInput lbm_cavity(int nx, int ny, int nz, float omega, float lid_velocity, bool lid, bool obstacle) {
    if (nx < 4 || ny < 4 || nz < 4)
        throw std::invalid_argument("LBM cavity: " + std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz) +
                                    " cells; expected at least 4 along each axis");
    if (!(omega > 0 && omega < 2)) throw std::invalid_argument("LBM cavity: omega " + std::to_string(omega) + "; expected a value in (0, 2)");
    if (!(std::fabs(lid_velocity) < 0.3f))
        throw std::invalid_argument("LBM cavity: lid velocity " + std::to_string(lid_velocity) + "; expected |u| < 0.3 (lattice units)");
    LbmInput in;
    in.nx = nx;
    in.ny = ny;
    in.nz = nz;
    in.omega = omega;
    in.lid_velocity = lid_velocity;
    in.flags.assign(in.cells(), lbm_fluid);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const bool wall = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
                const bool block = obstacle && x >= nx / 3 && x < nx / 2 && y >= ny / 3 && y < 2 * ny / 3 && z >= nz / 4 && z < nz / 2;
                std::uint8_t& flag = in.flags[(static_cast<std::size_t>(z) * ny + y) * nx + x];
                if (wall || block) flag = lbm_obstacle;
                else if (lid && z == nz - 2) flag = lbm_lid;
            }
    return in;
}

std::vector<float> lbm_rest(const LbmInput& in) {
    std::vector<float> f(in.cells() * lbm_q);
    for (std::size_t c = 0; c < in.cells(); ++c)
        for (int i = 0; i < lbm_q; ++i) f[c * lbm_q + i] = lbm_weight(i);
    return f;
}

void lbm_step_cpu(const LbmInput& in, const float* src, float* dst) {
    const int nx = in.nx, ny = in.ny, nz = in.nz;
    float out[lbm_q];
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const std::size_t c = (static_cast<std::size_t>(z) * ny + y) * nx + x;
                lbm_collide(src + c * lbm_q, out, in.flags[c], in.omega, in.lid_velocity);
                for (int i = 0; i < lbm_q; ++i) {
                    const std::size_t n =
                        (static_cast<std::size_t>(lbm_wrap(z, lbm_cz(i), nz)) * ny + lbm_wrap(y, lbm_cy(i), ny)) * nx + lbm_wrap(x, lbm_cx(i), nx);
                    dst[n * lbm_q + i] = out[i];
                }
            }
}

void lbm_run_cpu(const LbmInput& in, std::vector<float>& f, int steps) {
    std::vector<float> scratch(f.size());
    for (int t = 0; t < steps; ++t) {
        lbm_step_cpu(in, f.data(), scratch.data());
        std::swap(f, scratch);
    }
}

LbmSummary lbm_summary(const LbmInput& in, const std::vector<float>& f) {
    LbmSummary s;
    for (std::size_t c = 0; c < in.cells(); ++c) {
        const float* g = f.data() + c * lbm_q;
        double rho = 0, jx = 0, jy = 0, jz = 0;
        for (int i = 0; i < lbm_q; ++i) {
            rho += g[i];
            jx += lbm_cx(i) * static_cast<double>(g[i]);
            jy += lbm_cy(i) * static_cast<double>(g[i]);
            jz += lbm_cz(i) * static_cast<double>(g[i]);
        }
        s.mass += rho;
        if (in.flags[c] != lbm_obstacle && rho > 0) s.kinetic_energy += 0.5 * (jx * jx + jy * jy + jz * jz) / rho;
    }
    return s;
}

std::vector<float> lbm_to_soa(const std::vector<float>& aos, std::size_t cells) {
    std::vector<float> soa(aos.size());
    for (std::size_t c = 0; c < cells; ++c)
        for (int i = 0; i < lbm_q; ++i) soa[i * cells + c] = aos[c * lbm_q + i];
    return soa;
}

std::vector<float> lbm_to_aos(const std::vector<float>& soa, std::size_t cells) {
    std::vector<float> aos(soa.size());
    for (std::size_t c = 0; c < cells; ++c)
        for (int i = 0; i < lbm_q; ++i) aos[c * lbm_q + i] = soa[i * cells + c];
    return aos;
}

}  // namespace ryoo
