// The oracle cases (tests/data/oracle): real work units run through the original programs. Both CPU
// integrators must reproduce the integrals, the likelihood and the diagnostics to 1e-12 relative, for
// magnitude-uniform r bins (the top-level values) and kpc-uniform bins (the December 2009 CPU code as it
// was). The cases are part of the repository: a missing file fails the test, naming the path.
#include <gtest/gtest.h>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"
#include "test_support.hpp"

namespace {

using namespace testsupport;
constexpr double tolerance = 1e-12;

struct Case {
    std::string name;
    std::string integrator;
    mwsep::model::RBinning binning;
};

/// Readable test parameters in test listings and messages.
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.name << " with the " << c.integrator << " integrator, "
        << (c.binning == mwsep::model::RBinning::kpc ? "kpc" : "magnitude") << " r bins";
}

std::string case_label(const testing::TestParamInfo<Case>& info) {
    return info.param.name + "_" + info.param.integrator +
           (info.param.binning == mwsep::model::RBinning::kpc ? "_kpc" : "_magnitude");
}

class Oracle : public testing::TestWithParam<Case> {};

TEST_P(Oracle, MatchesOriginalProgram) {
    const Case& c = GetParam();
    const auto dir = oracle_case(c.name);
    auto ap = mwsep::model::read_astronomy_parameters(require_file(dir / "astronomy_parameters.txt").string());
    mwsep::model::apply_search_vector(
        ap, mwsep::model::read_search_parameters(require_file(dir / "search_parameters.txt").string()));
    const auto setup = mwsep::geometry::make_setup(mwsep::model::build_model(ap, c.binning));
    const auto stars = mwsep::model::read_stars(oracle_stars(dir).string());

    const bool reference = c.integrator == "reference";
    const auto integrals = reference ? mwsep::cpu::integrate_reference(setup) : mwsep::cpu::integrate_fast(setup, 0);
    const auto like = reference ? mwsep::cpu::likelihood_reference(setup, stars, integrals)
                                : mwsep::cpu::likelihood_fast(setup, stars, integrals, 0);

    const auto all = read_json(dir / "expected.json");
    const bool kpc = c.binning == mwsep::model::RBinning::kpc;
    const auto& expected = kpc ? all["variants"]["cpu2009_as_is_kpc_binning"] : all;
    EXPECT_EQ(stars.size(), static_cast<std::size_t>(all["number_stars"].num));
    EXPECT_LE(relative_difference(integrals.background, expected["background_integral"].num), tolerance)
        << "background integral " << integrals.background;
    const auto streams = expected["stream_integrals"].numbers();
    ASSERT_EQ(integrals.streams.size(), streams.size());
    for (std::size_t s = 0; s < streams.size(); ++s)
        EXPECT_LE(relative_difference(integrals.streams[s], streams[s]), tolerance) << "stream " << s + 1;
    EXPECT_LE(relative_difference(like.likelihood, expected["likelihood"].num), tolerance)
        << "likelihood " << like.likelihood;
    if (!kpc) {
        EXPECT_LE(relative_difference(like.background_likelihood, expected["background_likelihood"].num), tolerance);
        const auto only = expected["stream_only_likelihoods"].numbers();
        ASSERT_EQ(like.stream_only.size(), only.size());
        for (std::size_t s = 0; s < only.size(); ++s)
            EXPECT_LE(relative_difference(like.stream_only[s], only[s]), tolerance) << "stream-only " << s + 1;
    } else {
        EXPECT_EQ(like.zero_probability_stars, static_cast<long long>(expected["num_zero"].num));
    }
}

std::vector<Case> all_cases() {
    std::vector<Case> out;
    for (const char* name : {"small_test11", "stripe20_reduced", "stripe20_1000stars", "stripe86_cut_reduced"})
        for (const char* integrator : {"reference", "fast"})
            for (auto binning : {mwsep::model::RBinning::magnitude, mwsep::model::RBinning::kpc})
                out.push_back({name, integrator, binning});
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllCases, Oracle, testing::ValuesIn(all_cases()), case_label);

// The modern-format file of small_test11 (with parameters_version) describes the same unit.
TEST(OracleFormats, ModernFormatGivesSameModel) {
    const auto dir = oracle_case("small_test11");
    const auto a = mwsep::model::read_astronomy_parameters(require_file(dir / "astronomy_parameters.txt").string());
    const auto b =
        mwsep::model::read_astronomy_parameters(require_file(dir / "astronomy_parameters.modern_format.txt").string());
    EXPECT_FALSE(a.parameters_version.has_value());
    ASSERT_TRUE(b.parameters_version.has_value());
    EXPECT_EQ(a.background_parameters, b.background_parameters);
    ASSERT_EQ(a.streams.size(), b.streams.size());
    for (std::size_t s = 0; s < a.streams.size(); ++s) EXPECT_EQ(a.streams[s].parameters, b.streams[s].parameters);
    EXPECT_EQ(a.main.r.steps, b.main.r.steps);
}

}  // namespace
