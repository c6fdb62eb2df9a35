// The FEM stand-in's CPU baseline against values worked out by hand and laws independent of the code: the
// stiffness of one unsplit-jitter-free cube (P1 gradients on the six tetrahedra), one step from a unit
// displacement, zero row sums (free boundaries), conserved momentum, a bounded energy, the numbering being a
// permutation, and bad meshes refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "ryoo/cpu/fem.hpp"

namespace ryoo {
namespace {

/// K_ij of @p m (0 where the row has no entry for j).
double stiffness(const FemMesh& m, int i, int j) {
    for (int e = m.row_start[i]; e < m.row_start[i + 1]; ++e)
        if (m.column[e] == j) return m.value[e];
    return 0;
}

TEST(RyooFem, OneCubeHasTheHandWorkedStiffnessAndMasses) {
    // One unit cube, coefficient 1, grid order (node = x + 2 y + 4 z). Node 000 lies in all six tetrahedra of
    // volume 1/6 with |grad phi|^2 = 1: K = 1. Edge 000-100 lies in the two tetrahedra through 100, each adding
    // (1/6) (-1, 0, 0).(1, -1, 0) = -1/6: K = -1/3. Face and body diagonals from 000 have orthogonal gradients: 0.
    // Lumped masses: 6 (1/6) / 4 = 1/4 at 000 and 111, 2 (1/6) / 4 = 1/12 at the other six corners.
    const FemMesh m = fem_mesh(1, 0.0, 0.0, {});
    ASSERT_EQ(m.nodes(), 8u);
    EXPECT_NEAR(stiffness(m, 0, 0), 1.0, 1e-6);
    EXPECT_NEAR(stiffness(m, 0, 1), -1.0 / 3, 1e-6);
    EXPECT_NEAR(stiffness(m, 0, 2), -1.0 / 3, 1e-6);
    EXPECT_NEAR(stiffness(m, 0, 4), -1.0 / 3, 1e-6);
    EXPECT_NEAR(stiffness(m, 0, 3), 0.0, 1e-6);
    EXPECT_NEAR(stiffness(m, 0, 7), 0.0, 1e-6);
    EXPECT_NEAR(m.mass[0], 0.25, 1e-7);
    EXPECT_NEAR(m.mass[7], 0.25, 1e-7);
    EXPECT_NEAR(m.mass[1], 1.0 / 12, 1e-7);
    EXPECT_NEAR(m.mass[6], 1.0 / 12, 1e-7);
    // One step from u = 1 at node 000: f_000 = 1, so v_000 = -dt / (1/4); f_100 = -1/3, so v_100 = +4 dt.
    FemState s;
    s.u.assign(8, 0.0f);
    s.v.assign(8, 0.0f);
    s.u[0] = 1.0f;
    fem_run_cpu(m, s, 1);
    EXPECT_NEAR(s.v[0], -4.0 * m.dt, 1e-6);
    EXPECT_NEAR(s.v[1], 4.0 * m.dt, 1e-6);
    EXPECT_NEAR(s.u[0], 1.0 - 4.0 * m.dt * m.dt, 1e-6);
    EXPECT_NEAR(s.v[3], 0.0, 1e-7);
}

TEST(RyooFem, GradedCoefficientScalesTheStiffness) {
    // The coefficient 1 + grade x at each tetrahedron's centroid: node 000 has |grad phi|^2 = 1 in each of the
    // six tetrahedra of volume 1/6, so with grade 1 its diagonal is (1/6) sum over tetrahedra of (1 + cx).
    // Tetrahedra 000, e_a, e_a + e_b, 111 have cx = (0 + [a = x] + [a = x or b = x] + 1) / 4.
    const FemMesh m = fem_mesh(1, 0.0, 1.0, {});
    double expected = 0;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            if (a != b) expected += (1 + ((a == 0) + (a == 0 || b == 0) + 1) / 4.0) / 6;
    EXPECT_NEAR(stiffness(m, 0, 0), expected, 1e-6);
}

TEST(RyooFem, RowsSumToZeroAndMassesSumToTheVolume) {
    const FemMesh m = synthetic_fem_mesh(6);
    double mass = 0;
    for (std::size_t i = 0; i < m.nodes(); ++i) {
        double sum = 0, scale = 0;
        for (int e = m.row_start[i]; e < m.row_start[i + 1]; ++e) {
            sum += m.value[e];
            scale += std::fabs(m.value[e]);
        }
        EXPECT_LE(std::fabs(sum), 1e-5 * scale) << "row " << i;
        EXPECT_EQ(m.column[m.row_start[i]], static_cast<int>(i)) << "the diagonal comes first";
        mass += m.mass[i];
    }
    EXPECT_NEAR(mass, 1.0, 1e-5);  // the jitter moves interior nodes only: the unit cube's volume
}

TEST(RyooFem, NumberingIsAPermutation) {
    for (std::size_t count : {1u, 2u, 343u, 4913u}) {
        std::vector<std::int32_t> p = fem_permutation(count, 2008);
        std::sort(p.begin(), p.end());
        for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(p[i], static_cast<std::int32_t>(i));
    }
    const std::vector<std::int32_t> p = fem_permutation(4913, 2008);
    std::size_t fixed = 0;
    for (std::size_t i = 0; i < p.size(); ++i) fixed += p[i] == static_cast<std::int32_t>(i);
    EXPECT_LT(fixed, 20u) << "a shuffle leaves about one point in place";
}

TEST(RyooFem, MomentumIsConservedAndEnergyBounded) {
    const FemMesh m = synthetic_fem_mesh(10);
    FemState s = fem_initial(m);
    const double e0 = fem_energy(m, s);
    double scale = 0;
    for (std::size_t i = 0; i < m.nodes(); ++i) scale += m.mass[i];
    for (int chunk = 0; chunk < 10; ++chunk) {
        fem_run_cpu(m, s, 20);
        EXPECT_NEAR(fem_energy(m, s), e0, 0.05 * e0) << "after " << 20 * (chunk + 1) << " steps";
        EXPECT_NEAR(fem_momentum(m, s), 0.0, 1e-4 * scale * std::sqrt(2 * e0 / scale));
    }
    // The bound can fail: past the stability limit the energy grows.
    FemMesh unstable = m;
    unstable.dt *= 3;
    for (float& w : unstable.step_weight) w *= 3;
    FemState t = fem_initial(unstable);
    fem_run_cpu(unstable, t, 200);
    EXPECT_FALSE(std::fabs(fem_energy(unstable, t) - e0) <= 0.05 * e0);
}

TEST(RyooFem, RowOrderedMeshGivesTheSameStateBitForBit) {
    const FemMesh m = synthetic_fem_mesh(7);
    const FemMesh r = fem_row_ordered(m);
    FemState a = fem_initial(m), b = fem_initial(r);
    EXPECT_EQ(fem_renumber(m, a, r), b);
    fem_run_cpu(m, a, 30);
    fem_run_cpu(r, b, 30);
    EXPECT_EQ(fem_renumber(r, b, m), a);
}

TEST(RyooFem, BadMeshesAreRefused) {
    EXPECT_THROW(fem_mesh(0, 0.0, 0.0, {}), std::invalid_argument);
    EXPECT_THROW(fem_mesh(2, 0.3, 0.0, {}), std::invalid_argument);
    EXPECT_THROW(fem_mesh(2, 0.0, -1.0, {}), std::invalid_argument);
    std::vector<std::int32_t> twice(27, 0);
    EXPECT_THROW(fem_mesh(2, 0.0, 0.0, twice), std::invalid_argument);
    EXPECT_THROW(fem_mesh(2, 0.0, 0.0, std::vector<std::int32_t>(8, 0)), std::invalid_argument);
}

}  // namespace
}  // namespace ryoo
