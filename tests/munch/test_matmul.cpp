// The thesis's chapter 3 on the CPU: the ikj loop and its OpenMP version against a product worked out by
// hand, against an independent ijk product in long double, and the error bound's checker against a
// product it must refuse.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "munch/cpu/matmul.hpp"

using namespace munch;

namespace {

// C = A B the textbook way (ijk, one dot product per element), in long double: independent of the code under test.
std::vector<long double> ijk_long_double(const std::vector<float>& a, const std::vector<float>& b, std::size_t n) {
    std::vector<long double> c(n * n, 0.0L);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            long double s = 0;
            for (std::size_t k = 0; k < n; ++k) s += static_cast<long double>(a[i * n + k]) * b[k * n + j];
            c[i * n + j] = s;
        }
    return c;
}

}  // namespace

TEST(Matmul, HandWorkedExample) {
    // [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50].
    const std::vector<float> a{1, 2, 3, 4}, b{5, 6, 7, 8}, want{19, 22, 43, 50};
    std::vector<float> seq, omp;
    cpu::matmul_ikj(a, b, seq, 2);
    cpu::matmul_openmp(a, b, omp, 2, 2);
    EXPECT_EQ(seq, want);
    EXPECT_EQ(omp, want);
}

TEST(Matmul, SmallIntegersAreExactInEveryOrder) {
    // Entries in [-8, 8]: every product and partial sum of n <= 64 terms is an integer below 2^24, so the
    // float result must equal the exact one bit for bit.
    for (std::size_t n : {1u, 3u, 16u, 17u, 64u}) {
        std::vector<float> a(n * n), b(n * n);
        for (std::size_t i = 0; i < n * n; ++i) {
            a[i] = static_cast<float>(static_cast<int>((i * 7 + 3) % 17) - 8);
            b[i] = static_cast<float>(static_cast<int>((i * 11 + 5) % 17) - 8);
        }
        const auto exact = ijk_long_double(a, b, n);
        std::vector<float> seq, omp;
        cpu::matmul_ikj(a, b, seq, n);
        cpu::matmul_openmp(a, b, omp, n, 3);
        for (std::size_t i = 0; i < n * n; ++i) {
            ASSERT_EQ(static_cast<long double>(seq[i]), exact[i]) << "ikj, n = " << n << ", element " << i;
            ASSERT_EQ(static_cast<long double>(omp[i]), exact[i]) << "OpenMP, n = " << n << ", element " << i;
        }
    }
}

TEST(Matmul, RandomInputsWithinTheFloatBoundOfAnIndependentProduct) {
    for (std::size_t n : {5u, 32u, 100u}) {
        const auto a = cpu::matmul_input(n, 11), b = cpu::matmul_input(n, 12);
        const auto exact = ijk_long_double(a, b, n);
        std::vector<float> seq, omp;
        cpu::matmul_ikj(a, b, seq, n);
        cpu::matmul_openmp(a, b, omp, n, 4);
        EXPECT_EQ(seq, omp) << "each row of C is one thread's: the OpenMP product equals the sequential one";
        const double gamma = static_cast<double>(n) * std::ldexp(1.0, -24) / (1 - static_cast<double>(n) * std::ldexp(1.0, -24));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                long double mag = 0;
                for (std::size_t k = 0; k < n; ++k) mag += std::fabs(static_cast<long double>(a[i * n + k]) * b[k * n + j]);
                ASSERT_LE(std::fabs(static_cast<long double>(seq[i * n + j]) - exact[i * n + j]), gamma * mag)
                    << "n = " << n << ", C[" << i << "][" << j << "]";
            }
        const auto v = cpu::check_matmul(a, b, seq, n, 2);
        EXPECT_TRUE(v.valid) << v.first_failure;
        EXPECT_EQ(v.checked, "all");
        EXPECT_LE(v.max_ratio, 1.0);
    }
}

TEST(Matmul, InputsAreInTheStatedRangeAndDifferBySeed) {
    const auto a = cpu::matmul_input(64, 1), b = cpu::matmul_input(64, 2);
    EXPECT_NE(a, b);
    for (float v : a) {
        ASSERT_GE(v, -1.0f);
        ASSERT_LT(v, 1.0f);
    }
    EXPECT_EQ(a, cpu::matmul_input(64, 1));
}

TEST(Matmul, GammaIsKuOverOneMinusKu) {
    // k = 2^10: k u = 2^-14, gamma = 2^-14 / (1 - 2^-14), worked out by hand.
    EXPECT_DOUBLE_EQ(cpu::gamma_float(1024), 1.0 / 16383.0);
}

TEST(Matmul, TheCheckRefusesAProductOutsideTheBound) {
    const std::size_t n = 40;
    const auto a = cpu::matmul_input(n, 3), b = cpu::matmul_input(n, 4);
    std::vector<float> c;
    cpu::matmul_ikj(a, b, c, n);
    c[7 * n + 9] += 1e-3f;  // far above gamma_40 |A||B| (about 2.4e-6 x 40 / 4)
    const auto v = cpu::check_matmul(a, b, c, n, 2);
    EXPECT_FALSE(v.valid);
    EXPECT_NE(v.first_failure.find("C[7][9]"), std::string::npos) << v.first_failure;
    EXPECT_GT(v.max_ratio, 1.0);
    c[7 * n + 9] = NAN;
    EXPECT_FALSE(cpu::check_matmul(a, b, c, n, 2).valid);
}

TEST(Matmul, LargeProductsAreCheckedOnASampleOfRowsWithTheEnds) {
    const std::size_t n = 200;
    const auto a = cpu::matmul_input(n, 5), b = cpu::matmul_input(n, 6);
    std::vector<float> c;
    cpu::matmul_ikj(a, b, c, n);
    c[(n - 1) * n + 3] *= 1.01f;  // the last row: always among the sampled rows
    const auto v = cpu::check_matmul(a, b, c, n, 2, 10.0 * n * n);
    EXPECT_EQ(v.rows, 10u);
    EXPECT_EQ(v.checked, "10 of 200 rows");
    EXPECT_FALSE(v.valid);
}
