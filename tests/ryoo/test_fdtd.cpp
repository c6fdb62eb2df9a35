// The FDTD CPU baseline against physics worked out independently of the code: a pulse in vacuum moves at the
// Courant speed, the closed cavity's energy stays bounded (and does grow past the stability limit, so the
// bound can fail), the update of one cell equals the hand-worked difference, and bad media are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "ryoo/cpu/fdtd.hpp"

namespace ryoo {
namespace {

/// A vacuum of nx x ny cells at Courant number @p courant, without a source.
FdtdInput vacuum(int nx, int ny, float courant) {
    const std::size_t cells = static_cast<std::size_t>(nx) * ny;
    return fdtd_medium(nx, ny, courant, std::vector<float>(cells, 1.0f), std::vector<float>(cells, 1.0f));
}

/// Hz a Gaussian of width @p w cells along x centred on @p x0, the same in every row (a plane wave front).
FdtdFields plane_pulse(const FdtdInput& in, double x0, double w) {
    FdtdFields f = zero_fields(in);
    for (int y = 0; y + 1 < in.ny; ++y)
        for (int x = 0; x + 1 < in.nx; ++x) f.hz[static_cast<std::size_t>(y) * in.nx + x] = static_cast<float>(std::exp(-std::pow((x - x0) / w, 2)));
    return f;
}

TEST(RyooFdtd, OneStepOfOneCellIsTheHandWorkedDifference) {
    FdtdInput in = vacuum(6, 6, 0.5f);
    FdtdFields f = zero_fields(in);
    f.hz[2 * 6 + 3] = 1.0f;  // Hz = 1 at (3, 2) only
    fdtd_step_cpu(in, f, 0.0f);
    // Ey(x, y) -= 0.5 (hz(x, y) - hz(x - 1, y)): -0.5 at (3, 2), +0.5 at (4, 2); Ex(x, y) += 0.5 (hz(x, y) - hz(x, y - 1)):
    // +0.5 at (3, 2), -0.5 at (3, 3).
    EXPECT_EQ(f.ey[2 * 6 + 3], -0.5f);
    EXPECT_EQ(f.ey[2 * 6 + 4], 0.5f);
    EXPECT_EQ(f.ex[2 * 6 + 3], 0.5f);
    EXPECT_EQ(f.ex[3 * 6 + 3], -0.5f);
    // Hz(3, 2) -= 0.5 ((ey(4, 2) - ey(3, 2)) - (ex(3, 3) - ex(3, 2))) = 1 - 0.5 (1 + 1) = 0.
    EXPECT_EQ(f.hz[2 * 6 + 3], 0.0f);
    // Hz(2, 2) -= 0.5 ((ey(3, 2) - ey(2, 2)) - 0) = +0.25.
    EXPECT_EQ(f.hz[2 * 6 + 2], 0.25f);
}

TEST(RyooFdtd, APlaneWaveInVacuumMovesAtTheCourantSpeed) {
    // A pulse of Hz alone splits into two halves running along +x and -x at c = 1 cell per unit time, i.e.
    // courant cells per step: after 160 steps at 0.5 the right half's peak is 80 cells from the start.
    // The grid is tall enough that what the top and bottom walls send inwards (also at c) has not reached the
    // middle row by then.
    const FdtdInput in = vacuum(400, 200, 0.5f);
    FdtdFields f = plane_pulse(in, 150.0, 8.0);
    fdtd_run_cpu(in, f, 160, nullptr);
    const int row = 100 * in.nx;
    int peak = 151;
    for (int x = 151; x + 1 < in.nx; ++x)
        if (f.hz[row + x] > f.hz[row + peak]) peak = x;
    EXPECT_NEAR(peak, 150 + 80, 1) << "the right-moving half's peak";
    EXPECT_NEAR(f.hz[row + peak], 0.5, 0.05) << "half the pulse's amplitude";
}

/// The energy after each of @p steps steps from a pulse at Courant number @p courant.
std::vector<double> energies(float courant, int steps) {
    const FdtdInput in = vacuum(64, 64, courant);
    FdtdFields f = zero_fields(in);
    for (int y = 0; y < 63; ++y)
        for (int x = 0; x < 63; ++x) f.hz[static_cast<std::size_t>(y) * 64 + x] = static_cast<float>(std::exp(-((x - 30.0) * (x - 30.0) + (y - 25.0) * (y - 25.0)) / 16.0));
    std::vector<double> e;
    fdtd_run_cpu(in, f, steps, &e);
    return e;
}

/// The largest of @p e[first, last) (infinity if any is not finite).
double largest(const std::vector<double>& e, std::size_t first, std::size_t last) {
    double m = 0;
    for (std::size_t t = first; t < last; ++t) m = std::max(m, std::isfinite(e[t]) ? e[t] : INFINITY);
    return m;
}

TEST(RyooFdtd, TheClosedCavityKeepsItsEnergyBoundedBelowTheStabilityLimit) {
    // A lossless cavity, 2000 steps of reflections. The probe adds E and H half a step apart, so it oscillates
    // about the conserved energy (by a few per cent for this sharp pulse) but must not drift: the last 500
    // steps' largest value is no larger than the first 500 steps', and all stay within 25 % of the first.
    const std::vector<double> stable = energies(0.5f, 2000);
    EXPECT_LT(largest(stable, 0, stable.size()), 1.25 * stable.front());
    EXPECT_LE(largest(stable, 1500, 2000), 1.01 * largest(stable, 0, 500));
    // Past 1 / sqrt(2) the scheme is unstable and the same bound fails within a few hundred steps.
    const std::vector<double> unstable = energies(0.9f, 300);
    EXPECT_GT(largest(unstable, 0, unstable.size()), 1e3 * unstable.front());
}

TEST(RyooFdtd, TheSyntheticMediumHasItsBlockAndSource) {
    const FdtdInput in = synthetic_medium(100, 50);
    EXPECT_EQ(in.eps[25 * 100 + 60], 4.0f);
    EXPECT_EQ(in.eps[25 * 100 + 20], 1.0f);
    EXPECT_EQ(in.ce[25 * 100 + 60], 0.125f);
    EXPECT_EQ(in.source_index(), 25 * 100 + 25);
    // The source reaches Hz after the update: one step from rest leaves exactly the source's value there.
    FdtdFields f = zero_fields(in);
    fdtd_step_cpu(in, f, fdtd_source(in, 0));
    EXPECT_EQ(f.hz[in.source_index()], static_cast<float>(std::sin(2 * 3.14159265358979323846 / 40)));
}

TEST(RyooFdtd, BadMediaAreRefused) {
    EXPECT_THROW(fdtd_medium(3, 8, 0.5f, std::vector<float>(24, 1), std::vector<float>(24, 1)), std::invalid_argument);
    EXPECT_THROW(fdtd_medium(8, 8, 0.5f, std::vector<float>(63, 1), std::vector<float>(64, 1)), std::invalid_argument);
    EXPECT_THROW(fdtd_medium(8, 8, 1.5f, std::vector<float>(64, 1), std::vector<float>(64, 1)), std::invalid_argument);
    std::vector<float> eps(64, 1);
    eps[5] = 0;
    EXPECT_THROW(fdtd_medium(8, 8, 0.5f, eps, std::vector<float>(64, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace ryoo
