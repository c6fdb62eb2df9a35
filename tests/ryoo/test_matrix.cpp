// The study's inputs: reproducible, in range, exact in single precision; padding leaves the product alone.
#include <gtest/gtest.h>

#include <cmath>

#include "ryoo/core/matrix.hpp"

namespace ryoo {

TEST(RyooMatrix, SameSeedSameMatrixOtherSeedOtherMatrix) {
    EXPECT_EQ(random_matrix(33, 5).data, random_matrix(33, 5).data);
    EXPECT_NE(random_matrix(33, 5).data, random_matrix(33, 6).data);
}

TEST(RyooMatrix, EntriesAreInMinusOneToOneOnTheGridOfTwoToTheMinus23) {
    const Matrix m = random_matrix(64, 1);
    double sum = 0;
    for (float v : m.data) {
        ASSERT_GE(v, -1.0f);
        ASSERT_LT(v, 1.0f);
        const double scaled = static_cast<double>(v) * 0x1p23;
        ASSERT_EQ(scaled, std::floor(scaled));
        sum += v;
    }
    // 4096 uniform values: the mean lies within 5 standard deviations (1 / sqrt(3 * 4096)) of 0.
    EXPECT_LT(std::fabs(sum / 4096), 5 / std::sqrt(3.0 * 4096));
}

TEST(RyooMatrix, PaddingAddsZerosOnlyBeyondTheMatrix) {
    const Matrix m = random_matrix(5, 2);
    const auto p = padded_copy(m, 8);
    ASSERT_EQ(p.size(), 64u);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) EXPECT_EQ(p[i * 8 + j], (i < 5 && j < 5) ? m.at(i, j) : 0.0f);
    EXPECT_THROW(padded_copy(m, 4), std::invalid_argument);
    EXPECT_EQ(round_up(4096, 12), 4104);
    EXPECT_EQ(round_up(4096, 16), 4096);
}

TEST(RyooMatrix, BadSizesAreRefused) {
    EXPECT_THROW(random_matrix(0, 1), std::invalid_argument);
    EXPECT_THROW(random_matrix(70000, 1), std::invalid_argument);
}

}  // namespace ryoo
