// The LBM CPU baseline against values and laws worked out independently of the code: the D3Q19 weights and
// the equilibrium at a hand-computed velocity, its moments, streaming of single distributions without
// collision, bounce-back, and conservation of mass over many steps of the closed cavity.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "ryoo/cpu/lbm.hpp"
#include "ryoo/lbm_math.hpp"

namespace ryoo {
namespace {

TEST(RyooLbm, TheDirectionsAreD3Q19) {
    double weights = 0;
    int faces = 0, edges = 0;
    for (int i = 0; i < lbm_q; ++i) {
        weights += lbm_weight(i);
        const int length2 = lbm_cx(i) * lbm_cx(i) + lbm_cy(i) * lbm_cy(i) + lbm_cz(i) * lbm_cz(i);
        faces += length2 == 1;
        edges += length2 == 2;
        const int o = lbm_opposite(i);
        EXPECT_EQ(lbm_cx(o), -lbm_cx(i));
        EXPECT_EQ(lbm_cy(o), -lbm_cy(i));
        EXPECT_EQ(lbm_cz(o), -lbm_cz(i));
        for (int j = 0; j < i; ++j)
            EXPECT_FALSE(lbm_cx(i) == lbm_cx(j) && lbm_cy(i) == lbm_cy(j) && lbm_cz(i) == lbm_cz(j)) << i << " repeats " << j;
    }
    EXPECT_EQ(faces, 6);
    EXPECT_EQ(edges, 12);
    EXPECT_NEAR(weights, 1.0, 1e-7);
}

TEST(RyooLbm, TheEquilibriumMatchesHandWorkedValues) {
    // rho = 1, u = (0.1, 0, 0): u.u = 0.01, so 1 - 1.5 u.u = 0.985.
    // +x face: (1/18) (0.985 + 0.3 + 4.5 * 0.01) = 1.33 / 18 = 0.0738889
    // -x face: (1/18) (0.985 - 0.3 + 0.045) = 0.73 / 18 = 0.0405556
    // +y face: 0.985 / 18 = 0.0547222; rest: 0.985 / 3 = 0.3283333
    // edge (+x, +y): (1/36) (0.985 + 0.3 + 0.045) = 1.33 / 36 = 0.0369444
    EXPECT_NEAR(lbm_equilibrium(1, 1.0f, 0.1f, 0, 0), 1.33 / 18, 1e-7);
    EXPECT_NEAR(lbm_equilibrium(2, 1.0f, 0.1f, 0, 0), 0.73 / 18, 1e-7);
    EXPECT_NEAR(lbm_equilibrium(3, 1.0f, 0.1f, 0, 0), 0.985 / 18, 1e-7);
    EXPECT_NEAR(lbm_equilibrium(0, 1.0f, 0.1f, 0, 0), 0.985 / 3, 1e-7);
    EXPECT_NEAR(lbm_equilibrium(7, 1.0f, 0.1f, 0, 0), 1.33 / 36, 1e-7);
    // Its moments are the density and momentum it was built from.
    float f[lbm_q];
    for (int i = 0; i < lbm_q; ++i) f[i] = lbm_equilibrium(i, 1.2f, 0.05f, -0.02f, 0.03f);
    float rho, ux, uy, uz;
    lbm_moments(f, rho, ux, uy, uz);
    EXPECT_NEAR(rho, 1.2, 1e-6);
    EXPECT_NEAR(ux, 0.05, 1e-6);
    EXPECT_NEAR(uy, -0.02, 1e-6);
    EXPECT_NEAR(uz, 0.03, 1e-6);
    // A cell at equilibrium stays there through a collision.
    float out[lbm_q];
    lbm_collide(f, out, lbm_fluid, 1.7f, 0);
    for (int i = 0; i < lbm_q; ++i) EXPECT_NEAR(out[i], f[i], 1e-7) << i;
}

TEST(RyooLbm, WithoutCollisionEachDistributionMovesOneCellAlongItsDirection) {
    // With omega = 0 (set past the cavity's check) a collision returns its input exactly, so each marked
    // distribution must arrive unchanged at the neighbour along its direction.
    LbmInput in = lbm_cavity(6, 6, 6, 1.0f, 0.0f, false, false);
    in.flags.assign(in.cells(), lbm_fluid);
    in.omega = 0.0f;  // out = f exactly: pure streaming
    std::vector<float> src = lbm_rest(in), dst(src.size(), -1.0f);
    const std::size_t c = (2 * 6 + 3) * 6 + 1;  // (1, 3, 2); every other cell at rest (finite moments)
    for (int i = 0; i < lbm_q; ++i) src[c * lbm_q + i] = static_cast<float>(i + 1);
    lbm_step_cpu(in, src.data(), dst.data());
    for (int i = 0; i < lbm_q; ++i) {
        const std::size_t n = ((2 + lbm_cz(i)) * 6 + 3 + lbm_cy(i)) * 6 + 1 + lbm_cx(i);
        EXPECT_EQ(dst[n * lbm_q + i], static_cast<float>(i + 1)) << "direction " << i;
    }
    for (float v : dst) EXPECT_GT(v, 0.0f) << "every slot is written";
}

TEST(RyooLbm, AnObstacleSendsDistributionsBackWhereTheyCameFrom) {
    LbmInput in = lbm_cavity(5, 5, 5, 1.0f, 0.0f, false, false);
    in.flags.assign(in.cells(), lbm_fluid);
    const std::size_t wall = (2 * 5 + 2) * 5 + 2;
    in.flags[wall] = lbm_obstacle;
    std::vector<float> src(in.cells() * lbm_q, 0.0f), dst(src.size(), 0.0f);
    src[wall * lbm_q + 1] = 7.0f;  // arrived moving +x from (1, 2, 2)
    // Other cells at rest contribute nothing (all zero, and the equilibrium of zero density is zero).
    lbm_step_cpu(in, src.data(), dst.data());
    const std::size_t back = (2 * 5 + 2) * 5 + 1;
    EXPECT_EQ(dst[back * lbm_q + 2], 7.0f) << "leaves towards -x, to the cell it came from";
}

TEST(RyooLbm, TheCavityConservesMass) {
    // Without the lid: start from rest with a density bump, 60 steps; the total mass changes only by rounding.
    LbmInput in = lbm_cavity(16, 12, 10, 1.6f, 0.0f, false, true);
    std::vector<float> f = lbm_rest(in);
    for (std::size_t c = 0; c < in.cells(); ++c)
        if (in.flags[c] == lbm_fluid && c % 7 == 0)
            for (int i = 0; i < lbm_q; ++i) f[c * lbm_q + i] *= 1.1f;
    const double before = lbm_summary(in, f).mass;
    lbm_run_cpu(in, f, 60);
    const LbmSummary after = lbm_summary(in, f);
    EXPECT_NEAR(after.mass, before, 1e-5 * before);
    EXPECT_GT(after.kinetic_energy, 0.0) << "the bumps set the fluid moving";
    // With the lid the step still conserves mass (the lid's cells relax to an equilibrium of their own
    // density) and the lid drives a flow.
    LbmInput driven = lbm_cavity(16, 12, 10, 1.6f, 0.1f, true, true);
    std::vector<float> g = lbm_rest(driven);
    const double rest = lbm_summary(driven, g).mass;
    lbm_run_cpu(driven, g, 60);
    EXPECT_NEAR(lbm_summary(driven, g).mass, rest, 1e-5 * rest);
    EXPECT_GT(lbm_summary(driven, g).kinetic_energy, 1e-3);
}

TEST(RyooLbm, LayoutsRoundTripAndBadCavitiesAreRefused) {
    const LbmInput in = lbm_cavity(5, 4, 4, 1.0f, 0.0f, true, true);
    std::vector<float> f(in.cells() * lbm_q);
    for (std::size_t k = 0; k < f.size(); ++k) f[k] = static_cast<float>(k);
    const std::vector<float> soa = lbm_to_soa(f, in.cells());
    EXPECT_EQ(soa[3 * in.cells() + 10], f[10 * lbm_q + 3]);
    EXPECT_EQ(lbm_to_aos(soa, in.cells()), f);
    EXPECT_THROW(lbm_cavity(3, 8, 8, 1.0f, 0.0f, true, true), std::invalid_argument);
    EXPECT_THROW(lbm_cavity(8, 8, 8, 2.0f, 0.0f, true, true), std::invalid_argument);
    EXPECT_THROW(lbm_cavity(8, 8, 8, 1.0f, 0.5f, true, true), std::invalid_argument);
}

}  // namespace
}  // namespace ryoo
