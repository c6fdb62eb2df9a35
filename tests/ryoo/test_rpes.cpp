// RPES on the CPU against independent checks: F0 at hand-known points and by numerical quadrature of its
// integral, the fit table against F0, the Coulomb self-repulsion of a normalised Gaussian (2 sqrt(alpha /
// pi)) and the point-charge limit 1/R, the pair-based J against the sum of directly computed integrals,
// and the single-precision J within the stated bound.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "ryoo/cpu/rpes.hpp"
#include "ryoo/rpes_math.hpp"

namespace ryoo {
namespace {

/// F0(t) = integral over [0, 1] of exp(-t u^2) du by Simpson's rule on 20000 panels.
double f0_by_quadrature(double t) {
    const int n = 20000;
    double s = 1 + std::exp(-t);
    for (int i = 1; i < n; ++i) s += (i % 2 ? 4 : 2) * std::exp(-t * (double(i) / n) * (double(i) / n));
    return s / (3.0 * n);
}

TEST(RyooRpes, BoysFunctionAgainstKnownValuesAndQuadrature) {
    EXPECT_EQ(boys_f0(0), 1.0);
    EXPECT_NEAR(boys_f0(1), 0.7468241328124270, 1e-15);  // integral of exp(-u^2) over [0, 1]
    for (double t : {1e-9, 1e-3, 0.5, 2.0, 7.5, 15.9, 30.0})
        EXPECT_NEAR(boys_f0(t), f0_by_quadrature(t), 1e-12 * f0_by_quadrature(t)) << "T = " << t;
}

TEST(RyooRpes, FitTableHoldsItsBound) {
    const auto table = rpes_fit_table();
    const auto coef = [&table](int i) { return table[static_cast<std::size_t>(i)]; };
    double worst = 0;
    for (int i = 0; i <= 640000; ++i) {
        const float t = static_cast<float>(i * 1e-4);
        const double ref = boys_f0(static_cast<double>(t));
        worst = std::max(worst, std::abs(rpes_weight(t, coef) - ref) / ref);
    }
    EXPECT_LE(worst, rpes_fit_bound);
}

TEST(RyooRpes, SelfRepulsionAndPointChargeLimit) {
    const RpesPrimitive a{0, 0, 0, 1.3};
    EXPECT_NEAR(rpes_integral(a, a, a, a), 2 * std::sqrt(1.3 / std::numbers::pi), 1e-13);
    const RpesPrimitive b{0, 0, 50, 0.7};
    EXPECT_NEAR(rpes_integral(a, a, b, b), 1.0 / 50, 1e-12);
}

TEST(RyooRpes, PairRowsEqualDirectIntegrals) {
    const auto mol = rpes_molecule(2, 2, 1.5);
    const RpesPairs pairs = rpes_pairs(mol, 3);
    std::vector<int> rows = {0, 7, pairs.size() - 1};
    const auto j = rpes_rows_fp64(pairs, rows);
    // The pairs in the order rpes_pairs makes them: a <= b.
    std::vector<std::pair<int, int>> index;
    for (int a = 0; a < static_cast<int>(mol.size()); ++a)
        for (int b = a; b < static_cast<int>(mol.size()); ++b) index.push_back({a, b});
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto [a, b] = index[rows[r]];
        double sum = 0;
        for (int c = 0; c < pairs.size(); ++c) sum += rpes_integral(mol[a], mol[b], mol[index[c].first], mol[index[c].second]) * pairs.density[c];
        EXPECT_NEAR(j[r], sum, 1e-12 * sum);
    }
}

TEST(RyooRpes, SinglePrecisionRowsWithinTheStatedBound) {
    const RpesPairs pairs = rpes_pairs(rpes_molecule(2, 4, 2.0), 1);
    std::vector<int> rows;
    for (int r = 0; r < pairs.size(); r += 5) rows.push_back(r);
    const auto ref = rpes_rows_fp64(pairs, rows);
    const auto got = rpes_rows_cpu(rpes_pack(pairs), rpes_fit_table(), rows);
    for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_LE(std::abs(got[i] - ref[i]) / ref[i], rpes_row_bound) << "row " << rows[i];
}

TEST(RyooRpes, BadMoleculesAreRefused) {
    EXPECT_THROW(rpes_molecule(0, 2, 1), std::invalid_argument);
    EXPECT_THROW(rpes_molecule(2, 13, 1), std::invalid_argument);
    EXPECT_THROW(rpes_molecule(2, 2, 0), std::invalid_argument);
    EXPECT_THROW(boys_f0(-1), std::invalid_argument);
}

TEST(RyooRpes, LargeMoleculeRowsWithinTheBoundAboveTheFloor) {
    // The experiments' molecule: tight primitives on distant atoms give rows far below single precision's
    // range, which the bound judges against its floor; the others are held to the relative bound.
    const RpesPairs pairs = rpes_pairs(rpes_molecule(4, 6, 2.0), 1);
    std::vector<int> rows;
    for (int r = 0; r < 128; ++r) rows.push_back(static_cast<int>(static_cast<long long>(r) * pairs.size() / 128));
    const auto ref = rpes_rows_fp64(pairs, rows);
    const auto got = rpes_rows_cpu(rpes_pack(pairs), rpes_fit_table(), rows);
    EXPECT_LE(rpes_row_error(got, ref), rpes_row_bound);
    const double largest = *std::max_element(ref.begin(), ref.end());
    EXPECT_TRUE(std::any_of(ref.begin(), ref.end(), [&](double r) { return r < rpes_row_floor * largest; }))
        << "the sample has no row below the floor: the floor is not exercised";
    // A wrong row is caught: one large row off by twice the bound.
    std::vector<float> bad = got;
    const auto top = std::max_element(ref.begin(), ref.end()) - ref.begin();
    bad[static_cast<std::size_t>(top)] = static_cast<float>(ref[static_cast<std::size_t>(top)] * (1 + 2 * rpes_row_bound));
    EXPECT_GT(rpes_row_error(bad, ref), rpes_row_bound);
}

}  // namespace
}  // namespace ryoo
