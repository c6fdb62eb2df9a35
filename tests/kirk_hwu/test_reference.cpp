// The CPU computations against values worked out by hand, mathematical identities, each other, and the
// independent Python evaluation stored in data/kirk_hwu/tiny_expected.json.
#include <gtest/gtest.h>

#include <cmath>

#include "kirk_hwu/reference.hpp"
#include "test_support.hpp"

using namespace kirk_hwu;

namespace {

/// An MRI input of given voxels and samples, everything else zero.
MriInput hand_input(std::vector<float> x, std::vector<float> kx) {
    MriInput in;
    in.grid = 0;
    in.x = x;
    in.y.assign(x.size(), 0.0f);
    in.z.assign(x.size(), 0.0f);
    in.kx = kx;
    for (auto* a : {&in.ky, &in.kz, &in.phi_r, &in.phi_i, &in.d_r, &in.d_i}) a->assign(kx.size(), 0.0f);
    return in;
}

std::vector<double> expected_numbers(const testjson::Value& v) { return v.numbers(); }

}  // namespace

TEST(MriReference, QOfOneSampleAtTheOriginIsItsWeightEverywhere) {
    // k = 0: e = 0 for every voxel, so Q_n = |φ|² + 0i = 3² + 4² = 25.
    MriInput in = hand_input({-0.5f, 0.0f, 0.375f}, {0.0f});
    in.phi_r[0] = 3, in.phi_i[0] = 4;
    const auto q = mri_reference(in, MriOutput::q, {0, 1, 2}, 2);
    for (int n = 0; n < 3; ++n) {
        EXPECT_DOUBLE_EQ(q[n], 25.0);
        EXPECT_DOUBLE_EQ(q[3 + n], 0.0);
    }
}

TEST(MriReference, FhdOfAQuarterTurnIsWorkedOutByHand) {
    // kx = 1, x = 0.25: e = π/2, cos e = 0, sin e = 1. φ = 1, d = 2 + 3i: μ = conj(φ) d = 2 + 3i.
    // r = rμ cos e − iμ sin e = −3; i = iμ cos e + rμ sin e = 2.
    MriInput in = hand_input({0.25f}, {1.0f});
    in.phi_r[0] = 1, in.d_r[0] = 2, in.d_i[0] = 3;
    const auto f = mri_reference(in, MriOutput::fhd, {0}, 1);
    EXPECT_NEAR(f[0], -3.0, 1e-15);
    EXPECT_NEAR(f[1], 2.0, 1e-15);
}

TEST(MriReference, QIsTheFhdOfDataEqualToTheCoefficient) {
    // With d = φ, μ = conj(φ) φ = |φ|², so F^H d and Q coincide: an identity between the two sums.
    MriInput in = make_mri_input(Size::tiny);
    in.d_r = in.phi_r;
    in.d_i = in.phi_i;
    const auto voxels = spread_subset(in.voxels(), 64);
    const auto q = mri_reference(in, MriOutput::q, voxels, 2);
    const auto f = mri_reference(in, MriOutput::fhd, voxels, 2);
    for (std::size_t j = 0; j < q.size(); ++j) EXPECT_NEAR(q[j], f[j], 1e-12 * (1 + std::fabs(q[j])));
}

TEST(MriReference, TheScatterLoopInDoubleAddsInTheSameOrderAsTheGather) {
    const MriInput in = make_mri_input(Size::tiny);
    for (MriOutput out : {MriOutput::q, MriOutput::fhd}) {
        std::vector<double> r, i;
        mri_cpu_scatter(in, out, r, i);
        const auto ref = mri_reference(in, out, spread_subset(in.voxels(), in.voxels()), 2);
        for (std::size_t n = 0; n < in.voxels(); ++n) {
            EXPECT_EQ(r[n], ref[n]);
            EXPECT_EQ(i[n], ref[in.voxels() + n]);
        }
    }
}

TEST(MriReference, SinglePrecisionStaysWithinTheFp32Tolerance) {
    const MriInput in = make_mri_input(Size::tiny);
    for (MriOutput out : {MriOutput::q, MriOutput::fhd}) {
        std::vector<float> r, i;
        mri_cpu_scatter(in, out, r, i);
        std::vector<double> got(r.begin(), r.end());
        got.insert(got.end(), i.begin(), i.end());
        const auto e = compare(mri_reference(in, out, spread_subset(in.voxels(), in.voxels()), 2), got);
        EXPECT_LT(e.rel_l2, 1e-4);
        EXPECT_GT(e.rel_l2, 0.0);  // float really is less precise: the comparison can fail
    }
}

TEST(CoulombReference, OneAtomMidwayBetweenTwoPointsIsWorkedOutByHand) {
    // Lattice 0 and h = 0.1 along x; an atom of charge 2 at x = 0.05: both points are 0.05 away, V = 40.
    CoulombInput in;
    in.gx = 2, in.gy = 1, in.gz = 1, in.spacing = 0.1f;
    in.atoms = {0.05f, 0.0f, 0.0f, 2.0f};
    const auto v = coulomb_reference(in, {0, 1}, 1);
    EXPECT_NEAR(v[0], 2.0 / 0.05f, 1e-12);
    EXPECT_NEAR(v[1], 2.0 / (double(0.1f) - double(0.05f)), 1e-12);
    std::vector<float> f;
    coulomb_cpu(in, f);
    EXPECT_NEAR(f[0], 40.0f, 1e-4f);
}

TEST(CoulombReference, PotentialsOfTwoAtomsAdd) {
    CoulombInput a = make_coulomb_input(Size::tiny), b = a, both = a;
    a.atoms.resize(4 * 50);
    b.atoms.erase(b.atoms.begin(), b.atoms.begin() + 4 * 50);
    const auto points = spread_subset(both.points(), 100);
    const auto va = coulomb_reference(a, points, 2), vb = coulomb_reference(b, points, 2),
               vboth = coulomb_reference(both, points, 2);
    for (std::size_t p = 0; p < points.size(); ++p) EXPECT_NEAR(va[p] + vb[p], vboth[p], 1e-11 * (1 + std::fabs(vboth[p])));
}

TEST(CoulombReference, ThePublishedLoopInBothPrecisionsMatchesTheReference) {
    const CoulombInput in = make_coulomb_input(Size::tiny);
    const auto ref = coulomb_reference(in, spread_subset(in.points(), in.points()), 2);
    std::vector<double> d;
    coulomb_cpu(in, d);
    EXPECT_LT(compare(ref, d).rel_l2, 1e-14);
    std::vector<float> f;
    coulomb_cpu(in, f);
    EXPECT_LT(compare(ref, std::vector<double>(f.begin(), f.end())).rel_l2, 1e-5);
}

TEST(Compare, ErrorsOfAHandMadeExample) {
    const auto e = compare({3, -4}, {3, -4.5});
    EXPECT_DOUBLE_EQ(e.max_abs, 0.5);
    EXPECT_DOUBLE_EQ(e.max_rel, 0.5 / 4);
    EXPECT_DOUBLE_EQ(e.rel_l2, 0.5 / 5);
    EXPECT_THROW(compare({1}, {1, 2}), std::invalid_argument);
    EXPECT_TRUE(std::isinf(compare({1}, {NAN}).rel_l2));
}

TEST(SpreadSubset, PicksDistinctIndicesInRange) {
    const auto s = spread_subset(1000, 37);
    ASSERT_EQ(s.size(), 37u);
    for (std::size_t j = 1; j < s.size(); ++j) EXPECT_LT(s[j - 1], s[j]);
    EXPECT_LT(s.back(), 1000u);
    EXPECT_EQ(spread_subset(5, 9).size(), 5u);
}

TEST(IndependentEvaluation, ReferencesMatchTheStoredPythonOutputsOfTheTinyInputs) {
    const auto path = testsupport::source_dir() / "data" / "kirk_hwu" / "tiny_expected.json";
    const testjson::Value e = testjson::Parser(testsupport::read_text(path)).parse();
    const double tol = e["tolerance"].num;
    const MriInput mri = make_mri_input(Size::tiny);
    const auto all = spread_subset(mri.voxels(), mri.voxels());
    for (const auto& [key, out] : {std::pair{"mri_q", MriOutput::q}, std::pair{"mri_fhd", MriOutput::fhd}}) {
        std::vector<double> want = expected_numbers(e[key]["real"]);
        const auto im = expected_numbers(e[key]["imag"]);
        want.insert(want.end(), im.begin(), im.end());
        EXPECT_LT(compare(want, mri_reference(mri, out, all, 2)).max_rel, tol) << key;
    }
    const CoulombInput dcs = make_coulomb_input(Size::tiny);
    EXPECT_LT(compare(expected_numbers(e["coulomb"]), coulomb_reference(dcs, spread_subset(dcs.points(), dcs.points()), 2)).max_rel, tol);
}
