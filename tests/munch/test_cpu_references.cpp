// The CPU side of the study: the convolution and rolling-ball references against values worked out by
// hand and against identities, the inputs, the FFT length and the ulp distance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "munch/cpu/convolution.hpp"
#include "munch/cpu/rolling_ball.hpp"
#include "munch/fft_sizes.hpp"
#include "munch/thesis_layout.hpp"
#include "munch/inputs.hpp"
#include "munch/ulp.hpp"

using namespace munch;

TEST(Convolution, HandWorkedExample) {
    // (1 2 3) * (1 0 -1): 1, 2+0, 3+0-1, 0-2, -3.
    const std::vector<float> m{1, 2, 3}, n{1, 0, -1};
    const std::vector<double> want{1, 2, 2, -2, -3};
    EXPECT_EQ(cpu::convolution_reference(m, n), want);
    std::vector<float> seq, omp;
    cpu::convolution_sequential(m, n, seq);
    cpu::convolution_openmp(m, n, omp, 3);
    EXPECT_EQ(seq, std::vector<float>(want.begin(), want.end()));
    EXPECT_EQ(omp, seq);
}

TEST(Convolution, ADeltaFilterShiftsTheSignal) {
    const auto m = convolution_signal(50);
    const std::vector<float> delta{0, 0, 1};
    const auto p = cpu::convolution_reference(m, delta);
    ASSERT_EQ(p.size(), 52u);
    EXPECT_EQ(p[0], 0.0);
    EXPECT_EQ(p[1], 0.0);
    for (std::size_t i = 0; i < m.size(); ++i) EXPECT_EQ(p[i + 2], m[i]) << i;
}

TEST(Convolution, IsCommutative) {
    const auto a = convolution_signal(37, 5), b = convolution_signal(11, 6);
    EXPECT_EQ(cpu::convolution_reference(a, b), cpu::convolution_reference(b, a));
}

TEST(Convolution, SequentialAndOpenMPEqualTheReferenceExactly) {
    // Small integers: every float sum is exact, so the order of the additions cannot matter.
    for (auto [n, w] : {std::pair<std::size_t, std::size_t>{1, 1}, {10, 9}, {100, 99}, {1000, 999}, {30, 101}, {4096, 17}}) {
        const auto m = convolution_signal(n), f = convolution_filter(w);
        const auto ref = cpu::convolution_reference(m, f);
        std::vector<float> seq, omp;
        cpu::convolution_sequential(m, f, seq);
        cpu::convolution_openmp(m, f, omp, 4);
        ASSERT_EQ(seq.size(), n + w - 1);
        for (std::size_t i = 0; i < ref.size(); ++i) {
            ASSERT_EQ(seq[i], ref[i]) << "n=" << n << " w=" << w << " i=" << i;
            ASSERT_EQ(omp[i], ref[i]) << "n=" << n << " w=" << w << " i=" << i;
        }
    }
}

TEST(Inputs, FiltersAreNotSymmetricAndStayExact) {
    for (std::size_t w : {2u, 9u, 99u, 999u}) {
        const auto f = convolution_filter(w);
        EXPECT_FALSE(std::equal(f.begin(), f.end(), f.rbegin())) << w;
        for (float v : f) EXPECT_LE(std::fabs(v), filter_magnitude);
    }
    EXPECT_THROW(convolution_filter(0), std::invalid_argument);
    EXPECT_THROW(convolution_filter(widest_exact_filter + 1), std::invalid_argument);
    EXPECT_NO_THROW(convolution_filter(1'000'000));
}

TEST(Inputs, TheBallIsASymmetricHalfCircle) {
    const auto b = ball_profile(9, 1.0f);
    ASSERT_EQ(b.size(), 9u);
    EXPECT_TRUE(std::equal(b.begin(), b.end(), b.rbegin()));
    EXPECT_FLOAT_EQ(b[4], 4.0f);  // the centre: the radius
    EXPECT_FLOAT_EQ(b[0], 0.0f);  // the rim
    EXPECT_FLOAT_EQ(b[2], std::sqrt(12.0f));  // sqrt(4^2 - 2^2)
    EXPECT_THROW(ball_profile(8), std::invalid_argument);
    EXPECT_THROW(ball_profile(0), std::invalid_argument);
}

TEST(RollingBall, HandWorkedFlatExample) {
    // A flat element of width 3 on 5 1 5 5 5: erosion 1 1 1 5 5 (+inf outside), dilation 1 1 5 5 5.
    const std::vector<float> m{5, 1, 5, 5, 5}, flat{0, 0, 0};
    std::vector<float> e;
    cpu::erode(m, flat, e);
    EXPECT_EQ(e, (std::vector<float>{1, 1, 1, 5, 5}));
    EXPECT_EQ(cpu::rolling_ball(m, flat), (std::vector<float>{1, 1, 5, 5, 5}));
}

TEST(RollingBall, HandWorkedNonFlatExample) {
    // Ball 0 1 0 on 0 3 0 0: erosion min(x[i-1], x[i]-1, x[i+1]) (+inf outside) = -1 0 -1 -1; dilation
    // max(e[i-1], e[i]+1, e[i+1]) (-inf outside) = 0 1 0 0: the narrow peak is cut to the ball's height.
    const std::vector<float> m{0, 3, 0, 0}, ball{0, 1, 0};
    std::vector<float> e;
    cpu::erode(m, ball, e);
    EXPECT_EQ(e, (std::vector<float>{-1, 0, -1, -1}));
    EXPECT_EQ(cpu::rolling_ball(m, ball), (std::vector<float>{0, 1, 0, 0}));
}

TEST(RollingBall, IsAnOpening) {
    // Integer values keep x - h + h exact, so the identities hold exactly: the opening lies below the
    // signal, opening twice changes nothing, and a constant signal is left alone.
    const std::vector<float> ball{0, 2, 3, 4, 3, 2, 0};
    const auto m = small_integers(500, 20, 9);
    const auto once = cpu::rolling_ball(m, ball);
    for (std::size_t i = 0; i < m.size(); ++i) EXPECT_LE(once[i], m[i]) << i;
    EXPECT_EQ(cpu::rolling_ball(once, ball), once);
    const std::vector<float> flat(40, 7.0f);
    EXPECT_EQ(cpu::rolling_ball(flat, ball), flat);
}

TEST(RollingBall, OpenMPEqualsSequential) {
    const auto m = baseline_signal(20000);
    for (std::size_t w : {1u, 9u, 99u, 999u, 30001u}) {
        const auto ball = ball_profile(w);
        EXPECT_EQ(cpu::rolling_ball(m, ball, 4), cpu::rolling_ball(m, ball, 1)) << w;
    }
}

TEST(RollingBall, ThePublishedCpuCodeDidUpToTwiceTheKeptWork) {
    EXPECT_DOUBLE_EQ(cpu::rolling_ball_kept_work(100, 9), 2.0 * 100 * 9);
    EXPECT_DOUBLE_EQ(cpu::rolling_ball_published_cpu_work(100, 9), 2.0 * 108 * 9);
    const double n = 100000;
    EXPECT_NEAR(cpu::rolling_ball_published_cpu_work(100000, 99999) / cpu::rolling_ball_kept_work(100000, 99999), (2 * n - 2) / n, 1e-12);
}

TEST(FftSize, IsTheSmallestEvenSevenSmoothLength) {
    const auto smooth = [](std::size_t v) {
        for (std::size_t p : {2u, 3u, 5u, 7u})
            while (v % p == 0) v /= p;
        return v == 1;
    };
    for (std::size_t need = 1; need < 3000; need += 7) {
        const auto s = fft_size(need);
        EXPECT_GE(s, need);
        EXPECT_EQ(s % 2, 0u);
        EXPECT_TRUE(smooth(s)) << s;
        for (std::size_t v = std::max<std::size_t>(need, 2); v < s; ++v) EXPECT_FALSE(v % 2 == 0 && smooth(v)) << need << " " << v;
    }
    EXPECT_EQ(fft_size(1000), 1000u);  // 2^3 5^3
    EXPECT_EQ(fft_size(1001), 1008u);  // 2^4 3^2 7; 1002, 1004 and 1006 have a prime factor above 7
}

TEST(Ulp, CountsRepresentableSteps) {
    EXPECT_EQ(ulp_distance(1.0f, 1.0f), 0);
    EXPECT_EQ(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1);
    EXPECT_EQ(ulp_distance(0.0f, -0.0f), 0);
    EXPECT_EQ(ulp_distance(std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()), 2);
    EXPECT_EQ(ulp_distance(std::nanf(""), 1.0f), -1);
}

TEST(ThesisLayout, ReproducesTheProfilerLogsByteForByte) {
    // Table 4.1 (convolution, 10^5 samples, 999 taps): uploads of 411,056 B (M_apron) and 407,064 B (P),
    // a download of 403,992 B (the outputs), 264 blocks of 384 threads, three launches.
    const std::size_t n = 100000, w = 999;
    EXPECT_EQ(thesis::conv_apron(n, w) * sizeof(float), 411056u);
    EXPECT_EQ(thesis::conv_output_array(n, w) * sizeof(float), 407064u);
    EXPECT_EQ(thesis::conv_outputs(n, w) * sizeof(float), 403992u);
    EXPECT_EQ(thesis::conv_blocks(n, w), 264u);
    EXPECT_EQ(thesis::launches(w), 3u);
    // Table 5.1 (rolling ball, same sizes): 407,064 B (M_apron and R), 403,072 B (P), 400,000 B (the
    // device-to-device copy and the result), 261 blocks.
    EXPECT_EQ(thesis::rb_apron(n, w) * sizeof(float), 407064u);
    EXPECT_EQ(thesis::rb_output_array(n) * sizeof(float), 403072u);
    EXPECT_EQ(thesis::rb_blocks(n), 261u);
}

TEST(ThesisLayout, TheLastWindowOfTheLastLaunchStaysInsideThePaddedArrays) {
    // The kernels read M_apron (and R) at up to (blocks + 1) * 384 - 1 + (launches - 1) * 384 and write P
    // up to blocks * 384 - 1: both inside the listing's sizes for every size.
    for (std::size_t n : {1u, 10u, 383u, 384u, 385u, 1000u, 100000u})
        for (std::size_t w : {1u, 9u, 383u, 384u, 385u, 999u, 9999u}) {
            const std::size_t last = thesis::launches(w) - 1;
            EXPECT_LT((thesis::conv_blocks(n, w) + 1) * thesis::block - 1 + last * thesis::block, thesis::conv_apron(n, w)) << n << " " << w;
            EXPECT_LE(thesis::conv_blocks(n, w) * thesis::block, thesis::conv_output_array(n, w)) << n << " " << w;
            if (w % 2 == 1) {
                EXPECT_LT((thesis::rb_blocks(n) + 1) * thesis::block - 1 + last * thesis::block, thesis::rb_apron(n, w)) << n << " " << w;
                EXPECT_LE(thesis::rb_blocks(n) * thesis::block, thesis::rb_output_array(n)) << n << " " << w;
            }
        }
}
