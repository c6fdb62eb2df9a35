/// @file lbm_math.hpp
/// @brief The per-cell arithmetic of the D3Q19 lattice-Boltzmann method (BGK collision), written once for
/// the CPU and the GPU.
///
/// Direction 0 rests; 1 .. 6 are the faces (+x, -x, +y, -y, +z, -z); 7 .. 18 the edges, each followed by its
/// opposite. A fluid cell relaxes its 19 distributions towards the equilibrium of its density and velocity;
/// a lid cell does the same with its velocity replaced by the lid's; an obstacle cell sends every
/// distribution back the way it came (bounce-back). Every product is rounded on its own (lbm_mul) or in an
/// explicit fused multiply-add, and the sums are written in one order, so that the CPU and the GPU round
/// every cell identically and their lattices agree bit for bit.
#pragma once

#include <cstdint>

#include "ryoo/point_math.hpp"

/// Asks nvcc to unroll the loop over the 19 directions (empty in the host passes, whose compiler warns on the
/// pragma; it unrolls constant-trip loops at -O3 on its own).
#if defined(__CUDA_ARCH__)
#define LBM_UNROLL _Pragma("unroll")
#else
#define LBM_UNROLL
#endif

namespace ryoo {

/// Distributions per cell.
inline constexpr int lbm_q = 19;

/// What a cell is.
enum LbmCell : std::uint8_t {
    lbm_fluid = 0,     ///< fluid: BGK collision
    lbm_obstacle = 1,  ///< solid: bounce-back
    lbm_lid = 2,       ///< fluid moved by the lid: BGK towards the lid's velocity
};

/// The x, y and z components of direction @p i (0 .. 18).
RYOO_HOST_DEVICE constexpr int lbm_cx(int i) {
    switch (i) {
    case 1: case 7: case 9: case 11: case 13: return 1;
    case 2: case 8: case 10: case 12: case 14: return -1;
    default: return 0;
    }
}
/// The y component of direction @p i.
RYOO_HOST_DEVICE constexpr int lbm_cy(int i) {
    switch (i) {
    case 3: case 7: case 10: case 15: case 17: return 1;
    case 4: case 8: case 9: case 16: case 18: return -1;
    default: return 0;
    }
}
/// The z component of direction @p i.
RYOO_HOST_DEVICE constexpr int lbm_cz(int i) {
    switch (i) {
    case 5: case 11: case 14: case 15: case 18: return 1;
    case 6: case 12: case 13: case 16: case 17: return -1;
    default: return 0;
    }
}
/// The direction opposite @p i.
RYOO_HOST_DEVICE constexpr int lbm_opposite(int i) { return i == 0 ? 0 : (i % 2 == 1 ? i + 1 : i - 1); }
/// The weight of direction @p i: 1/3 at rest, 1/18 for a face, 1/36 for an edge.
RYOO_HOST_DEVICE constexpr float lbm_weight(int i) { return i == 0 ? 1.0f / 3 : (i <= 6 ? 1.0f / 18 : 1.0f / 36); }

/// @p a * @p b rounded on its own (never contracted into a fused multiply-add).
RYOO_HOST_DEVICE inline float lbm_mul(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

/// @p a / @p b rounded correctly, whatever the compiler's division settings.
RYOO_HOST_DEVICE inline float lbm_div(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

/// The equilibrium of direction @p i for density @p rho and velocity (ux, uy, uz):
/// w_i rho (1 + 3 c.u + 4.5 (c.u)^2 - 1.5 u.u).
RYOO_HOST_DEVICE inline float lbm_equilibrium(int i, float rho, float ux, float uy, float uz) {
    float cu = 0.0f;
    if (lbm_cx(i) > 0) cu += ux; else if (lbm_cx(i) < 0) cu -= ux;
    if (lbm_cy(i) > 0) cu += uy; else if (lbm_cy(i) < 0) cu -= uy;
    if (lbm_cz(i) > 0) cu += uz; else if (lbm_cz(i) < 0) cu -= uz;
    const float uu = fmaf(ux, ux, fmaf(uy, uy, lbm_mul(uz, uz)));
    const float base = 1.0f - lbm_mul(1.5f, uu);
    const float bracket = fmaf(lbm_mul(4.5f, cu), cu, fmaf(3.0f, cu, base));
    return lbm_mul(lbm_mul(lbm_weight(i), rho), bracket);
}

/// The density and velocity of the distributions @p f (19 floats): rho = sum f_i, u = sum c_i f_i / rho.
RYOO_HOST_DEVICE inline void lbm_moments(const float* f, float& rho, float& ux, float& uy, float& uz) {
    float r = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;
    LBM_UNROLL
    for (int i = 0; i < lbm_q; ++i) {
        r += f[i];
        if (lbm_cx(i) > 0) jx += f[i]; else if (lbm_cx(i) < 0) jx -= f[i];
        if (lbm_cy(i) > 0) jy += f[i]; else if (lbm_cy(i) < 0) jy -= f[i];
        if (lbm_cz(i) > 0) jz += f[i]; else if (lbm_cz(i) < 0) jz -= f[i];
    }
    rho = r;
    ux = lbm_div(jx, r);
    uy = lbm_div(jy, r);
    uz = lbm_div(jz, r);
}

/// The distributions a cell of kind @p kind sends along each direction after collision: @p out[i] leaves
/// for the neighbour at c_i. Fluid and lid cells: f_i + omega (feq_i - f_i) (the lid's cells with velocity
/// (lid_velocity, 0, 0)); obstacle cells: f of the opposite direction (bounce-back).
RYOO_HOST_DEVICE inline void lbm_collide(const float* f, float* out, int kind, float omega, float lid_velocity) {
    if (kind == lbm_obstacle) {
    LBM_UNROLL
        for (int i = 0; i < lbm_q; ++i) out[i] = f[lbm_opposite(i)];
        return;
    }
    float rho, ux, uy, uz;
    lbm_moments(f, rho, ux, uy, uz);
    if (kind == lbm_lid) {
        ux = lid_velocity;
        uy = 0.0f;
        uz = 0.0f;
    }
    LBM_UNROLL
    for (int i = 0; i < lbm_q; ++i) out[i] = fmaf(omega, lbm_equilibrium(i, rho, ux, uy, uz) - f[i], f[i]);
}

/// The neighbour of coordinate @p x along an axis of @p n cells in direction @p c (-1, 0, 1), wrapping around.
RYOO_HOST_DEVICE inline int lbm_wrap(int x, int c, int n) {
    const int y = x + c;
    return y < 0 ? y + n : (y >= n ? y - n : y);
}

}  // namespace ryoo
