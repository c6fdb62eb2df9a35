// The synthetic inputs: the generator's known outputs, the shapes, the ranges the specification asks for,
// and the rule that no atom sits on a lattice point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kirk_hwu/inputs.hpp"

using namespace kirk_hwu;

TEST(SplitMix64, FirstOutputsOfSeedZeroAreTheReferenceValues) {
    // The reference implementation's first outputs for seed 0 (Vigna's splitmix64.c).
    SplitMix64 g(0);
    EXPECT_EQ(g.next(), 0xE220A8397B1DCDAFull);
    EXPECT_EQ(g.next(), 0x6E789E6AA1B965F4ull);
    EXPECT_EQ(g.next(), 0x06C45D188009454Full);
}

TEST(Sizes, NamesRoundTripAndUnknownNamesAreRefused) {
    for (Size s : {Size::tiny, Size::small, Size::medium, Size::full}) EXPECT_EQ(parse_size(size_name(s)), s);
    EXPECT_THROW(parse_size("huge"), std::invalid_argument);
}

TEST(MriInputs, ShapesAndRangesFollowTheSpecification) {
    const MriInput in = make_mri_input(Size::small);
    EXPECT_EQ(in.voxels(), 32u * 32 * 32);
    EXPECT_EQ(in.samples(), 3072u);
    for (const auto* a : {&in.x, &in.y, &in.z}) {
        EXPECT_EQ(*std::min_element(a->begin(), a->end()), -0.5f);
        EXPECT_LT(*std::max_element(a->begin(), a->end()), 0.5f);
    }
    for (const auto* a : {&in.kx, &in.ky, &in.kz})
        for (float k : *a) ASSERT_TRUE(k >= -16.0f && k <= 16.0f);
    // Voxel n = i + g (j + g l): voxel 1 is one step along x from voxel 0.
    EXPECT_FLOAT_EQ(in.x[1] - in.x[0], 1.0f / 32);
    EXPECT_EQ(in.y[1], in.y[0]);
}

TEST(MriInputs, TheSameSizeGivesTheSameInputBitForBit) {
    const MriInput a = make_mri_input(Size::tiny), b = make_mri_input(Size::tiny);
    EXPECT_EQ(a.kx, b.kx);
    EXPECT_EQ(a.d_i, b.d_i);
    EXPECT_NE(a.kx, make_mri_input(Size::small).kx);
}

TEST(CoulombInputs, NoAtomLiesWithinATenthOfTheSpacingOfALatticePoint) {
    const CoulombInput in = make_coulomb_input(Size::small);
    ASSERT_EQ(in.atom_count(), 1000u);
    const double h = in.spacing;
    const int counts[3] = {in.gx, in.gy, in.gz};
    for (std::size_t a = 0; a < in.atom_count(); ++a) {
        double gap2 = 0;
        for (int d = 0; d < 3; ++d) {
            const double p = in.atoms[4 * a + d];
            const double i = std::clamp(std::round(p / h), 0.0, counts[d] - 1.0);
            gap2 += (p - i * h) * (p - i * h);
        }
        ASSERT_GE(std::sqrt(gap2), h / 10 * 0.999) << "atom " << a;
        ASSERT_LE(std::fabs(in.atoms[4 * a + 3]), 1.0f);
    }
}
