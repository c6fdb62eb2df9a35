// The benchmark driver's statistics and CSV writer.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/csv.hpp"
#include "harness/sampling.hpp"
#include "harness/statistics.hpp"

namespace {

using namespace harness;

TEST(BenchStatistics, MedianMinMaxOfOddAndEvenSamples) {
    const auto odd = summarize({5.0, 1.0, 3.0});
    EXPECT_EQ(odd.median, 3.0);
    EXPECT_EQ(odd.min, 1.0);
    EXPECT_EQ(odd.max, 5.0);
    EXPECT_EQ(odd.count, 3u);
    const auto even = summarize({4.0, 1.0, 2.0, 10.0});
    EXPECT_EQ(even.median, 3.0);
    EXPECT_EQ(summarize({7.0}).median, 7.0);
    EXPECT_THROW(summarize({}), std::invalid_argument);
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(BenchCsv, WritesHeaderOnceAndAppendsRows) {
    const auto path = std::filesystem::temp_directory_path() / "mwsep_test_bench.csv";
    std::filesystem::remove(path);
    {
        CsvAppender csv(path.string(), {"a", "b"});
        csv.row({"1", "x,y"});
    }
    {
        CsvAppender csv(path.string(), {"a", "b"});  // reopening appends, no second header
        csv.row({"2", "say \"hi\""});
        EXPECT_THROW(csv.row({"3"}), std::invalid_argument);
    }
    EXPECT_EQ(slurp(path), "a,b\n1,\"x,y\"\n2,\"say \"\"hi\"\"\"\n");
    EXPECT_THROW(CsvAppender(path.string(), {"a", "c"}), std::runtime_error);  // another layout
    std::filesystem::remove(path);
}

TEST(BenchCsv, NumbersReadBackExactly) {
    for (double v : {0.1, -2.9853612911855993, 1e-300, 123456789.0}) EXPECT_EQ(std::stod(csv_number(v)), v);
}

}  // namespace

// The sampling rule: a value worked out by hand, and each of the three ways to stop.
namespace {

TEST(Sampling, RelativeStdevWorkedByHand) {
    // Mean 10, sample variance ((1 + 1 + 0) / 2) = 1, stdev 1: 10 %.
    EXPECT_NEAR(harness::relative_stdev_pct({9.0, 11.0, 10.0}), 10.0, 1e-12);
    EXPECT_EQ(harness::relative_stdev_pct({5.0}), 0.0);
}

TEST(Sampling, StopsOnNoiseOnlyAfterTheMinimum) {
    harness::Sampling s({3, 10, 1.0, 100});
    s.add(10.0);
    s.add(10.0);
    EXPECT_FALSE(s.done()) << "two identical samples are steady, but the minimum is three";
    s.add(10.0);
    EXPECT_TRUE(s.done());
    EXPECT_EQ(s.reason(), "noise");
}

TEST(Sampling, NoisySamplesRunToTheMaximum) {
    harness::Sampling s({2, 4, 0.1, 1e9});
    for (double ms : {1.0, 2.0, 1.0}) {
        s.add(ms);
        EXPECT_FALSE(s.done());
    }
    s.add(2.0);
    EXPECT_TRUE(s.done());
    EXPECT_EQ(s.reason(), "max_samples");
}

TEST(Sampling, StopsAtTheTimeLimit) {
    harness::Sampling s({2, 100, 0.0, 1.0});  // 1 s of samples at most
    s.add(600.0);
    EXPECT_FALSE(s.done());
    s.add(700.0);  // noisy, and 1.3 s in all
    EXPECT_TRUE(s.done());
    EXPECT_EQ(s.reason(), "time_limit");
}

TEST(Sampling, RefusesAnImpossibleCriterion) {
    EXPECT_THROW(harness::Sampling({0, 5, 1.0, 1.0}), std::invalid_argument);
    EXPECT_THROW(harness::Sampling({5, 4, 1.0, 1.0}), std::invalid_argument);
    EXPECT_THROW(harness::Sampling({1, 4, 1.0, 0.0}), std::invalid_argument);
}

}  // namespace
