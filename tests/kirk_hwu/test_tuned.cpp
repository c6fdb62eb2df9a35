// The tuned CPU loops (src/kirk_hwu/tuned.hpp) against the FP64 references and the math library in double:
// sin and cos of the polynomial reduction over the phases' range, Q and F^H d and the Coulomb potential on
// whole inputs (a voxel count and a row length that leave remainders after the blocks and vector lanes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "kirk_hwu/reference.hpp"
#include "kirk_hwu/subsets.hpp"
#include "kirk_hwu/tuned.hpp"

using namespace kirk_hwu;

namespace {

/// The largest absolute error of tuned::sincos_fast against std::sin, std::cos in double at @p x.
double sincos_error(float x) {
    float s = 0, c = 0;
    tuned::sincos_fast(x, s, c);
    const double xd = x;
    return std::max(std::fabs(s - std::sin(xd)), std::fabs(c - std::cos(xd)));
}

/// The relative L2 error of a float result against its FP64 reference at every point (real parts, then the
/// imaginary parts when @p i is not empty).
double rel_l2(const std::vector<double>& reference, const std::vector<float>& r, const std::vector<float>& i = {}) {
    std::vector<double> got(r.begin(), r.end());
    got.insert(got.end(), i.begin(), i.end());
    return compare(reference, got).rel_l2;
}

}  // namespace

TEST(TunedSinCos, WithinItsBoundOverThePhasesRange) {
    // Every float of a regular lattice over the range, and the points around each multiple of π/4 (the
    // quadrant boundaries, where the reduction picks between two j) where a careless reduction fails.
    double worst = 0;
    const std::int64_t steps = 2'000'000;
    for (std::int64_t k = -steps; k <= steps; ++k) {
        const float x = static_cast<float>(static_cast<double>(tuned::sincos_fast_range) * k / steps);
        worst = std::max(worst, sincos_error(x));
    }
    for (int q = -5215; q <= 5215; ++q) {  // |q·π/4| ≤ 4096
        const float centre = static_cast<float>(q * 0.78539816339744830962);
        float x = centre;
        for (int u = 0; u < 8; ++u) x = std::nextafter(x, -1e9f);
        for (int u = 0; u < 16; ++u, x = std::nextafter(x, 1e9f)) worst = std::max(worst, sincos_error(x));
    }
    EXPECT_LE(worst, tuned::sincos_fast_bound);
    EXPECT_GT(worst, 0.0);  // single precision: an error exists, so the check compared real values
}

TEST(TunedSinCos, SignsAndQuadrantsAtHandWorkedPoints) {
    // x = 0, ±π/2, π, 3π/2 and −π: sin and cos are 0 or ±1 (to within the rounding of x itself).
    struct Point { double x, s, c; };
    for (const Point p : {Point{0, 0, 1}, Point{M_PI / 2, 1, 0}, Point{-M_PI / 2, -1, 0}, Point{M_PI, 0, -1},
                          Point{1.5 * M_PI, -1, 0}, Point{-M_PI, 0, -1}, Point{100 * M_PI, 0, 1}}) {
        float s = 0, c = 0;
        tuned::sincos_fast(static_cast<float>(p.x), s, c);
        EXPECT_NEAR(s, p.s, 2e-5) << "x = " << p.x;
        EXPECT_NEAR(c, p.c, 2e-5) << "x = " << p.x;
    }
}

TEST(TunedMri, QAndFhdWithinTheToleranceOfTheFp64Reference) {
    // The small input's first 700 voxels: one whole block of 512 and a remainder of 188.
    MriInput in = make_mri_input(Size::small);
    for (auto* a : {&in.x, &in.y, &in.z}) a->resize(700);
    const auto all = spread_subset(in.voxels(), in.voxels());
    for (const MriOutput out : {MriOutput::q, MriOutput::fhd}) {
        std::vector<float> r, i, dr, di;
        tuned::mri(in, out, r, i);
        mri_cpu_scatter(in, out, dr, di);
        const auto reference = mri_reference(in, out, all, 2);
        const double tuned_error = rel_l2(reference, r, i), documents_error = rel_l2(reference, dr, di);
        EXPECT_LE(tuned_error, tuned::tuned_tolerance);
        // The tuned loop is no less accurate than the documents' single-precision loop, within a factor 4 (both
        // round the phase to float; the polynomials add less than that rounding).
        EXPECT_LE(tuned_error, 4 * documents_error + 1e-7) << "tuned " << tuned_error << ", documents' " << documents_error;
    }
}

TEST(TunedMri, AVoxelsResultDoesNotDependOnItsBlock) {
    // The same voxels computed in one run and alone in runs of one agree (each voxel adds its terms in
    // increasing m whatever block it is in; vector and scalar code may contract to FMAs differently, so not
    // bit for bit).
    MriInput in = make_mri_input(Size::tiny);
    std::vector<float> r, i;
    tuned::mri(in, MriOutput::fhd, r, i);
    for (std::size_t n : {std::size_t(0), std::size_t(511), in.voxels() - 1}) {
        MriInput one = in;
        one.x = {in.x[n]}, one.y = {in.y[n]}, one.z = {in.z[n]};
        std::vector<float> r1, i1;
        tuned::mri(one, MriOutput::fhd, r1, i1);
        const double scale = 1e-5 * (std::fabs(r[n]) + std::fabs(i[n]) + 1e-3);
        EXPECT_NEAR(r1[0], r[n], scale);
        EXPECT_NEAR(i1[0], i[n], scale);
    }
}

TEST(TunedCoulomb, WithinTheToleranceOfTheFp64Reference) {
    // A lattice row of 37 points (a remainder after any vector width) over two slices.
    const CoulombInput in = make_coulomb_input(CoulombShape{37, 5, 2, 300}, 11);
    std::vector<float> g, d;
    tuned::coulomb(in, g);
    coulomb_cpu(in, d);
    const auto reference = coulomb_reference(in, spread_subset(in.points(), in.points()), 2);
    EXPECT_LE(rel_l2(reference, g), 1e-5);
    EXPECT_LE(rel_l2(reference, g), 4 * rel_l2(reference, d) + 1e-7);
    const CoulombInput small = make_coulomb_input(Size::small);
    std::vector<float> gs;
    tuned::coulomb(small, gs);
    EXPECT_LE(rel_l2(coulomb_reference(small, spread_subset(small.points(), 4096), 2),
                     [&] {
                         std::vector<float> picked;
                         for (std::size_t p : spread_subset(small.points(), 4096)) picked.push_back(gs[p]);
                         return picked;
                     }()),
              tuned::tuned_tolerance);
}

// ---- the subsets of voxels of the increased resolutions (src/kirk_hwu/subsets.hpp) -------------------------------

TEST(VoxelSubsets, CoverEveryVoxelOnceInOrderWithSizesWithinOne) {
    for (const std::size_t subsets : {std::size_t(1), std::size_t(7), std::size_t(64), std::size_t(1000)}) {
        const std::size_t voxels = 1000;
        const auto ranges = voxel_subsets(voxels, subsets);
        ASSERT_EQ(ranges.size(), subsets);
        std::size_t next = 0, smallest = voxels, largest = 0;
        for (const auto& r : ranges) {
            EXPECT_EQ(r.first, next);
            next += r.count;
            smallest = std::min(smallest, r.count), largest = std::max(largest, r.count);
        }
        EXPECT_EQ(next, voxels);
        EXPECT_LE(largest - smallest, 1u);
    }
    EXPECT_THROW(voxel_subsets(10, 0), std::invalid_argument);
    EXPECT_THROW(voxel_subsets(10, 11), std::invalid_argument);
}

TEST(VoxelSubsets, PositionsOfARangeAreThoseOfTheWholeGrid) {
    // The small input's grid (32³) built whole by make_mri_input, against its ranges built alone.
    const MriInput whole = make_mri_input(Size::small);
    MriInput part;
    for (const auto& r : voxel_subsets(whole.voxels(), 5)) {
        grid_positions(part, whole.grid, r);
        for (std::size_t k = 0; k < r.count; k += 97) {
            EXPECT_EQ(part.x[k], whole.x[r.first + k]);
            EXPECT_EQ(part.y[k], whole.y[r.first + k]);
            EXPECT_EQ(part.z[k], whole.z[r.first + k]);
        }
    }
    EXPECT_THROW(grid_positions(part, 4, {60, 5}), std::out_of_range);
}
