// The error bound and the double-precision check, against values worked out by hand and against products
// summed in different orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ryoo/core/matrix.hpp"
#include "ryoo/core/product_check.hpp"
#include "ryoo/point_math.hpp"

namespace ryoo {
namespace {

/// C = A B in single precision, summing each dot product in the order @p order gives: 0 forward,
/// 1 backward, 2 pairwise (a tree), each step one fused multiply-add or one rounded addition.
std::vector<float> single_product(const Matrix& a, const Matrix& b, int order) {
    const int n = a.n;
    std::vector<float> c(static_cast<std::size_t>(n) * n);
    std::vector<float> terms(n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            float acc = 0;
            if (order == 0)
                for (int k = 0; k < n; ++k) acc = multiply_add(a.at(i, k), b.at(k, j), acc);
            else if (order == 1)
                for (int k = n - 1; k >= 0; --k) acc = multiply_add(a.at(i, k), b.at(k, j), acc);
            else {
                for (int k = 0; k < n; ++k) terms[k] = a.at(i, k) * b.at(k, j);
                for (int width = 1; width < n; width *= 2)
                    for (int k = 0; k + width < n; k += 2 * width) terms[k] = terms[k] + terms[k + width];
                acc = terms[0];
            }
            c[static_cast<std::size_t>(i) * n + j] = acc;
        }
    return c;
}

}  // namespace

TEST(RyooErrorBound, GammaOf4096InSinglePrecisionIsOneOver4095) {
    // k u = 4096 * 2^-24 = 2^-12, so gamma = 2^-12 / (1 - 2^-12) = 1 / 4095 (the spec's 2.44e-4).
    EXPECT_DOUBLE_EQ(gamma(4096, single_unit_roundoff), 1.0 / 4095);
    EXPECT_DOUBLE_EQ(gamma(0, single_unit_roundoff), 0.0);
    EXPECT_THROW(gamma(1 << 24, single_unit_roundoff), std::invalid_argument);
}

TEST(RyooErrorBound, TheFactorAddsInputRoundingAndTheReferencesOwnError) {
    const double g = 1.0 / 4095, v = 0x1p-10, g64 = gamma(4096, double_unit_roundoff);
    EXPECT_NEAR(bound_factor(4096, single_unit_roundoff, 0), (g + g64) * (1 + 2 * g64), 1e-18);
    EXPECT_NEAR(bound_factor(4096, single_unit_roundoff, v), (2 * v + v * v + g * (1 + v) * (1 + v) + g64) * (1 + 2 * g64), 1e-18);
}

TEST(RyooProductCheck, AWorstCaseSumOfTinyTermsStaysWithinTheBound) {
    // Row 0 of A is 1 followed by 2^-24s and column 0 of B is all ones: summed forward in single precision
    // every 2^-24 is lost (ties round to even), an error of (k - 1) 2^-24 against the bound of about
    // k 2^-24 (1 + (k - 1) 2^-24): the bound is nearly attained, and it holds.
    const int n = 64;
    Matrix a{n, std::vector<float>(n * n, 0.0f)}, b{n, std::vector<float>(n * n, 0.0f)};
    a.data[0] = 1;
    for (int k = 1; k < n; ++k) a.data[k] = 0x1p-24f;
    for (int k = 0; k < n; ++k) b.data[k * n] = 1;
    const auto c = single_product(a, b, 0);
    EXPECT_EQ(c[0], 1.0f);
    const ProductReference ref(a, b);
    const CheckResult r = ref.check(c.data(), n);
    EXPECT_TRUE(r.pass()) << r.describe();
    EXPECT_EQ(r.worst_i, 0);
    EXPECT_EQ(r.worst_j, 0);
    EXPECT_GT(r.worst_ratio, 0.9);  // (k - 1) / k of the bound
    EXPECT_LT(r.worst_ratio, 1.0);
}

TEST(RyooProductCheck, ProductsSummedInAnyOrderPass) {
    const Matrix a = random_matrix(96, 3), b = random_matrix(96, 4);
    const ProductReference ref(a, b);
    EXPECT_EQ(ref.size(), 96 * 96);
    for (int order = 0; order < 3; ++order) {
        const auto c = single_product(a, b, order);
        const CheckResult r = ref.check(c.data(), 96);
        EXPECT_TRUE(r.pass()) << "order " << order << ": " << r.describe();
        EXPECT_EQ(r.checked, 96 * 96);
    }
}

TEST(RyooProductCheck, AnElementOffByMoreThanItsBoundFails) {
    const Matrix a = random_matrix(64, 5), b = random_matrix(64, 6);
    const ProductReference ref(a, b);
    auto c = single_product(a, b, 0);
    // The bound of element (7, 9) is about gamma_64 (|A||B|)_79 <= 64 * 2^-24 * 64; adding 0.01 exceeds it.
    c[7 * 64 + 9] += 0.01f;
    const CheckResult r = ref.check(c.data(), 64);
    EXPECT_FALSE(r.pass());
    EXPECT_EQ(r.failed, 1);
    EXPECT_EQ(r.worst_i, 7);
    EXPECT_EQ(r.worst_j, 9);
    c[7 * 64 + 9] = NAN;
    EXPECT_FALSE(ref.check(c.data(), 64).pass());
}

TEST(RyooProductCheck, TF32RoundedInputsFailTheFP32BoundButPassTheirOwn) {
    // Inputs cut to 10 fraction bits (what TF32 keeps) change the product by far more than FP32 summation
    // can; the bound with input roundoff 2^-10 admits it.
    const Matrix a = random_matrix(128, 7), b = random_matrix(128, 8);
    auto cut = [](Matrix m) {
        for (float& v : m.data) v = std::ldexp(std::trunc(std::ldexp(v, 10 - std::ilogb(v))), std::ilogb(v) - 10);
        return m;
    };
    const auto c = single_product(cut(a), cut(b), 0);
    const ProductReference ref(a, b);
    EXPECT_FALSE(ref.check(c.data(), 128, single_unit_roundoff, 0).pass());
    EXPECT_TRUE(ref.check(c.data(), 128, single_unit_roundoff, tf32_input_roundoff).pass());
}

TEST(RyooProductCheck, LargeProductsAreSampledWithTheCorners) {
    const Matrix a = random_matrix(300, 9), b = random_matrix(300, 10);
    const ProductReference ref(a, b, 1000);
    EXPECT_EQ(ref.size(), 1000);
    const auto c = single_product(a, b, 0);
    EXPECT_TRUE(ref.check(c.data(), 300).pass());
    auto wrong = c;
    wrong[299 * 300 + 299] += 1;  // a corner is always among the sampled elements
    EXPECT_FALSE(ref.check(wrong.data(), 300).pass());
    EXPECT_THROW(ProductReference(a, random_matrix(10, 1)), std::invalid_argument);
}

}  // namespace ryoo
