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
