// The application suite's small inputs against outputs computed by a second, independent program:
// data/ryoo/make_expected.py (standard-library Python) rebuilds each input from the generators' description
// and computes the TPACF histograms, the Petri-net totals, the RC5-72 challenge and the elimination's
// solution itself. Exact for the integers; the single-precision solution within the stored tolerance of the
// double-precision one. (The GPU variants are checked against the same file in test_gpu_applications.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "json_lite.hpp"
#include "ryoo/cpu/elimination.hpp"
#include "ryoo/cpu/pns.hpp"
#include "ryoo/cpu/rc5.hpp"
#include "ryoo/cpu/tpacf.hpp"
#include "test_support.hpp"

namespace ryoo {
namespace {

testjson::Value stored() {
    return testjson::Parser(testsupport::read_text(testsupport::source_dir() / "data" / "ryoo" / "small_expected.json")).parse();
}

std::vector<std::uint64_t> counts(const testjson::Value& v) {
    std::vector<std::uint64_t> out;
    for (double x : v.numbers()) out.push_back(static_cast<std::uint64_t>(x));
    return out;
}

TEST(RyooExpected, TpacfHistogramsEqualTheIndependentOnes) {
    const testjson::Value e = stored()["tpacf"];
    const int points = static_cast<int>(e["points"].num), sets = static_cast<int>(e["random_sets"].num);
    const TpacfHistograms h = tpacf_cpu(synthetic_sky(points, sets, static_cast<int>(e["bins"].num),
                                                      static_cast<std::uint64_t>(e["seed"].num)));
    EXPECT_EQ(h.dd, counts(e["dd"]));
    for (int s = 0; s < sets; ++s) {
        const std::vector<std::uint64_t> dr(h.dr.begin() + s * h.slots, h.dr.begin() + (s + 1) * h.slots);
        const std::vector<std::uint64_t> rr(h.rr.begin() + s * h.slots, h.rr.begin() + (s + 1) * h.slots);
        EXPECT_EQ(dr, counts(e["dr"].items.at(s))) << "random set " << s;
        EXPECT_EQ(rr, counts(e["rr"].items.at(s))) << "random set " << s;
    }
}

TEST(RyooExpected, PetriNetTotalsEqualTheIndependentOnes) {
    const testjson::Value e = stored()["pns"];
    PnsProblem p;
    p.edge = static_cast<int>(e["edge"].num);
    p.trajectories = static_cast<std::uint32_t>(e["trajectories"].num);
    p.steps = static_cast<std::uint32_t>(e["steps"].num);
    p.seed = static_cast<std::uint32_t>(e["seed"].num);
    const PnsResult r = pns_cpu(p);
    EXPECT_EQ(r.tokens, counts(e["tokens"]));
    EXPECT_EQ(r.firings, static_cast<std::uint64_t>(e["firings"].num));
}

TEST(RyooExpected, Rc5ChallengeAndSearchAgreeWithTheIndependentCipher) {
    const testjson::Value e = stored()["rc5"];
    const auto planted = static_cast<std::uint64_t>(e["planted"].num);
    const Rc5Challenge c = rc5_challenge(static_cast<std::uint64_t>(e["seed"].num), planted);
    EXPECT_EQ(std::to_string(c.base_lo), e["base_lo"].str);
    EXPECT_EQ(c.base_hi, static_cast<std::uint32_t>(e["base_hi"].num));
    EXPECT_EQ(c.plain[0], static_cast<std::uint32_t>(e["plain"].items.at(0).num));
    EXPECT_EQ(c.plain[1], static_cast<std::uint32_t>(e["plain"].items.at(1).num));
    EXPECT_EQ(c.cipher[0], static_cast<std::uint32_t>(e["cipher"].items.at(0).num));
    EXPECT_EQ(c.cipher[1], static_cast<std::uint32_t>(e["cipher"].items.at(1).num));
    // The keys around the planted one: exactly one matches, the planted key.
    const Rc5Result r = rc5_search_cpu(c, planted - 1000, 2000);
    EXPECT_EQ(r.first, planted);
    EXPECT_EQ(r.matches, 1u);
}

TEST(RyooExpected, EliminationSolutionWithinTheToleranceOfTheDoublePrecisionOne) {
    const testjson::Value e = stored()["elimination"];
    LinearSystem s = dominant_system(static_cast<int>(e["n"].num), static_cast<std::uint64_t>(e["seed"].num));
    eliminate_cpu(s);
    const std::vector<float> x = back_substitute(s);
    const std::vector<double> want = e["x"].numbers();
    ASSERT_EQ(x.size(), want.size());
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        worst = std::max(worst, std::abs(x[i] - want[i]));
        scale = std::max(scale, std::abs(want[i]));
    }
    EXPECT_LT(worst / scale, e["tolerance"].num);
    EXPECT_GT(worst, 0.0) << "a single-precision solve equal to the double-precision one to the last bit is unexpected";
}

}  // namespace
}  // namespace ryoo
