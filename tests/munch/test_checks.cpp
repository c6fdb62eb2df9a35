// The checks every GPU output goes through: they must accept the right output and catch a wrong one,
// in full and in sampled mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "munch/check/reference.hpp"
#include "munch/cpu/convolution.hpp"
#include "munch/cpu/rolling_ball.hpp"
#include "munch/inputs.hpp"

using namespace munch;

TEST(SamplePositions, AllOrEndsAndSpread) {
    EXPECT_EQ(check::sample_positions(5, 10), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
    const auto p = check::sample_positions(1'000'000, 100);
    EXPECT_LE(p.size(), 100u);
    EXPECT_GE(p.size(), 90u);
    EXPECT_EQ(p.front(), 0u);
    EXPECT_EQ(p.back(), 999'999u);
    EXPECT_TRUE(std::is_sorted(p.begin(), p.end()));
    EXPECT_EQ(std::adjacent_find(p.begin(), p.end()), p.end());
}

TEST(ConvolutionCheck, AcceptsTheRightOutputAndCatchesOneWrongValue) {
    const auto m = convolution_signal(300), f = convolution_filter(21);
    std::vector<float> out;
    cpu::convolution_sequential(m, f, out);
    const check::ConvolutionReference ref(m, f, 2);
    const auto ok = ref.check(out, 0.0);
    EXPECT_TRUE(ok.valid);
    EXPECT_EQ(ok.checked, "all");
    out[137] += 1.0f;
    const auto bad = ref.check(out, 0.0);
    EXPECT_FALSE(bad.valid);
    EXPECT_EQ(bad.max_abs_err, 1.0);
    EXPECT_NE(bad.first_failure.find("output 137"), std::string::npos);
    EXPECT_TRUE(ref.check(out, 1.0).valid);  // within a tolerance of 1
    out.pop_back();
    EXPECT_THROW(ref.check(out, 0.0), std::invalid_argument);
}

TEST(ConvolutionCheck, SampledModeCatchesAWrongEdge) {
    const auto m = convolution_signal(20000), f = convolution_filter(99);
    std::vector<float> out;
    cpu::convolution_sequential(m, f, out);
    const check::ConvolutionReference ref(m, f, 2, 1e5);  // about 1000 of 20098 outputs
    EXPECT_NE(ref.check(out, 0.0).checked, "all");
    EXPECT_TRUE(ref.check(out, 0.0).valid);
    out.back() = std::nanf("");
    EXPECT_FALSE(ref.check(out, 0.0).valid);
}

TEST(RollingBallCheck, SampledValuesEqualTheFullReference) {
    const auto m = baseline_signal(3000);
    const auto ball = ball_profile(101);
    const auto full = cpu::rolling_ball(m, ball);
    const check::RollingBallReference sampled(m, ball, 2, 2e5);  // w^2 = 10201 per sample: about 19 samples
    EXPECT_NE(sampled.check(full).checked, "all");
    EXPECT_TRUE(sampled.check(full).valid);
    auto wrong = full;
    wrong[sampled.positions()[3]] -= 0.25f;
    EXPECT_FALSE(sampled.check(wrong).valid);
    EXPECT_EQ(check::RollingBallReference(m, ball, 2).check(full).checked, "all");
}

TEST(RollingBallCheck, RefusesWhatCannotBeChecked) {
    EXPECT_FALSE(check::rolling_ball_checkable(10'000'000, 999'999));
    EXPECT_TRUE(check::rolling_ball_checkable(1'000'000, 9'999));
    EXPECT_THROW(check::RollingBallReference(std::vector<float>(10, 1.0f), ball_profile(3), 1, 1.0), std::invalid_argument);
}
