// The compressed line-of-sight quadrature (a different algorithm from the exact sum, with a controlled
// error): its Gauss rules against direct long-double sums of the discrete measure and a hand-worked rule,
// and its integrals and likelihood against the extended-precision integrator (and, beside it, the exact
// double-precision fast integrator) on the tiny unit, every oracle case and a sweep of candidates across
// the fit's boxes (narrowest sigma included).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "mwsep/cpu/compressed.hpp"
#include "mwsep/cpu/compressed_rule.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"
#include "test_support.hpp"

namespace {

using namespace testsupport;
using mwsep::cpu::CompressedReport;

/// The accuracy the compressed integrator must reach against the exact sum (target 1e-13).
constexpr double integral_tolerance = 1e-12;

mwsep::model::AstronomyParameters tiny() { return mwsep::model::read_astronomy_parameters(workunit("tiny").string()); }

mwsep::geometry::IntegrationSetup setup_of(const mwsep::model::AstronomyParameters& ap,
                                           mwsep::model::RBinning binning = mwsep::model::RBinning::magnitude) {
    return mwsep::geometry::make_setup(mwsep::model::build_model(ap, binning));
}

/// Chebyshev polynomials T_0..T_K at t, in long double.
std::vector<long double> chebyshev(long double t, int K) {
    std::vector<long double> T(K + 1);
    T[0] = 1;
    if (K >= 1) T[1] = t;
    for (int k = 2; k <= K; ++k) T[k] = 2 * t * T[k - 1] - T[k - 2];
    return T;
}

TEST(CompressedRule, HandWorkedThreePointMeasure) {
    // Measure {-1, 0, 1} with unit weights: the 2-node Gauss rule has nodes +-sqrt(2/3) and weights 3/2
    // (it reproduces the moments 3, 0, 2, 0), and the 1-node rule the mean 0 with the mass 3.
    const auto rec = mwsep::cpu::discrete_recurrence({-1.0L, 0.0L, 1.0L}, {1.0L, 1.0L, 1.0L}, 2);
    const auto one = mwsep::cpu::gauss_rule(rec, 1);
    EXPECT_NEAR(static_cast<double>(one.x[0]), 0.0, 1e-18);
    EXPECT_NEAR(static_cast<double>(one.weight[0]), 3.0, 1e-15);
    const auto two = mwsep::cpu::gauss_rule(rec, 2);
    EXPECT_NEAR(static_cast<double>(two.x[0]), -std::sqrt(2.0 / 3.0), 1e-15);
    EXPECT_NEAR(static_cast<double>(two.x[1]), std::sqrt(2.0 / 3.0), 1e-15);
    EXPECT_NEAR(static_cast<double>(two.weight[0]), 1.5, 1e-15);
    EXPECT_NEAR(static_cast<double>(two.weight[1]), 1.5, 1e-15);
}

TEST(CompressedRule, RejectsBadMeasures) {
    EXPECT_THROW(mwsep::cpu::discrete_recurrence({0.0L, 1.0L}, {1.0L, -1.0L}, 1), std::invalid_argument);
    EXPECT_THROW(mwsep::cpu::discrete_recurrence({0.0L, 1.0L}, {1.0L, 1.0L}, 3), std::invalid_argument);
    EXPECT_THROW(mwsep::cpu::discrete_recurrence({0.0L, NAN}, {1.0L, 1.0L}, 1), std::invalid_argument);
}

/// Every level of @p ladder (built from @p los) integrates T_k in the scaled variable, k <= 2n - 1, as the
/// direct long-double sum over the measure does, to rounding; weights positive, nodes inside the support and
/// strictly increasing as the integrators use them: in double, both as x = ln r and as r.
void expect_exact_for_polynomials(const mwsep::geometry::FoldedLineOfSight& los, const mwsep::cpu::CompressedLadder& ladder) {
    ASSERT_GE(ladder.levels(), 2);
    const std::size_t N = los.r_point.size();
    std::vector<long double> x(N);
    long double lo = 1e300L, hi = -1e300L, mass = 0;
    for (std::size_t m = 0; m < N; ++m) {
        x[m] = std::log(static_cast<long double>(los.r_point[m]));
        lo = std::min(lo, x[m]), hi = std::max(hi, x[m]);
        mass += los.weight[m];
    }
    const long double c = (lo + hi) / 2, h = (hi - lo) / 2;
    const int K = 2 * ladder.size.back() - 1;
    std::vector<long double> direct(K + 1, 0.0L);
    for (std::size_t m = 0; m < N; ++m) {
        const auto T = chebyshev((x[m] - c) / h, K);
        for (int k = 0; k <= K; ++k) direct[k] += los.weight[m] * T[k];
    }
    for (int level = 0; level < ladder.levels(); ++level) {
        const auto& rule = ladder.rule[level];
        const int n = ladder.size[level];
        ASSERT_EQ(static_cast<int>(rule.x.size()), n) << "level " << n;
        ASSERT_EQ(static_cast<int>(ladder.x[level].size()), n) << "level " << n;
        ASSERT_EQ(static_cast<int>(ladder.r[level].size()), n) << "level " << n;
        std::vector<long double> by_rule(2 * n, 0.0L);
        for (int i = 0; i < n; ++i) {
            EXPECT_GT(rule.weight[i], 0.0L) << "level " << n << " node " << i;
            EXPECT_GE(rule.x[i], lo) << "level " << n << " node " << i;
            EXPECT_LE(rule.x[i], hi) << "level " << n << " node " << i;
            if (i > 0) {
                EXPECT_GT(ladder.x[level][i], ladder.x[level][i - 1])
                    << "level " << n << " node " << i << ": ln r equal to node " << i - 1 << "'s once stored as double";
                EXPECT_GT(ladder.r[level][i], ladder.r[level][i - 1])
                    << "level " << n << " node " << i << ": r equal to node " << i - 1 << "'s once stored as double";
            }
            const auto T = chebyshev((rule.x[i] - c) / h, 2 * n - 1);
            for (int k = 0; k < 2 * n; ++k) by_rule[k] += rule.weight[i] * T[k];
        }
        double worst = 0;
        int worst_k = 0;
        for (int k = 0; k < 2 * n; ++k) {
            const double e = static_cast<double>(std::fabs(by_rule[k] - direct[k]) / mass);
            if (e > worst) worst = e, worst_k = k;
        }
        // |T_k| <= 1 on the support, so the sums are at most the mass: "to rounding" is a few hundred
        // long-double ulps of the mass for polynomials of degree up to 2047.
        EXPECT_LE(worst, 1e-16) << "level " << n << ": moment of T_" << worst_k;
        std::printf("rule of %4d nodes: largest |rule - direct| / mass over T_0..T_%d: %.2e\n", n, 2 * n - 1, worst);
    }
}

/// The ladder that build_ladder gives for @p los, checked as above, with its construction printed.
void expect_exact_for_polynomials(const mwsep::geometry::FoldedLineOfSight& los) {
    const auto ladder = mwsep::cpu::build_ladder(los);
    std::printf("%zu points, %s construction, %d reduced points, ladder to %d nodes%s%s\n", los.r_point.size(),
                ladder.construction.c_str(), ladder.reduced_points, ladder.size.back(), ladder.stopped.empty() ? "" : ": ",
                ladder.stopped.c_str());
    EXPECT_EQ(ladder.construction, "fast");
    expect_exact_for_polynomials(los, ladder);
}

mwsep::geometry::FoldedLineOfSight large_grid() {
    const auto s = setup_of(mwsep::model::read_astronomy_parameters(workunit("stripe11-large").string()));
    return mwsep::geometry::fold_line_of_sight(s.areas[0]);
}

TEST(CompressedRule, ExactForPolynomialsOnTheTinyUnit) {
    const auto s = setup_of(tiny());
    expect_exact_for_polynomials(mwsep::geometry::fold_line_of_sight(s.areas[0]));
}

TEST(CompressedRule, ExactForPolynomialsOnAnOracleGridWithKpcBins) {
    auto ap = mwsep::model::read_astronomy_parameters(oracle_case("small_test11").string() + "/astronomy_parameters.txt");
    const auto s = setup_of(ap, mwsep::model::RBinning::kpc);
    expect_exact_for_polynomials(mwsep::geometry::fold_line_of_sight(s.areas[0]));
}

TEST(CompressedRule, ExactForPolynomialsOnTheLargeGrid) {
    // 84,000 points (700 r bins of 120 convolution points: the stripe-11 model's grid, also 3s-large's), the
    // ladder up to 1024 nodes.
    const auto los = large_grid();
    const auto ladder = mwsep::cpu::build_ladder(los);
    EXPECT_EQ(ladder.construction, "fast");
    EXPECT_EQ(ladder.size.back(), 1024) << ladder.stopped;
    expect_exact_for_polynomials(los, ladder);
}

TEST(CompressedRule, ReferenceConstructionKeepsOnlyLevelsDistinctInDouble) {
    // The long-double construction (the fallback) loses orthogonality near the tiny unit's end points, where
    // nodes converge onto isolated points of the measure, and then gives pairs of nearly equal nodes; a level
    // with a pair equal in double is left out with those above it, so what it keeps passes the same checks.
    const auto s = setup_of(tiny());
    const auto los = mwsep::geometry::fold_line_of_sight(s.areas[0]);
    const auto ladder = mwsep::cpu::build_ladder_reference(los);
    std::printf("reference construction: ladder to %d nodes%s%s\n", ladder.size.back(), ladder.stopped.empty() ? "" : ": ",
                ladder.stopped.c_str());
    expect_exact_for_polynomials(los, ladder);
}

TEST(CompressedRule, FastAndLongDoubleRecurrencesAgree) {
    // Two independent constructions of the same recurrence: the reduced measure in double-double
    // (fast_recurrence) and every point in long double (discrete_recurrence, whose orthogonality holds on
    // this grid for the first 512 coefficients); then the rules of the two ladders up to 512 nodes.
    const auto los = large_grid();
    const int n = 512;
    std::vector<long double> x, w;
    for (std::size_t m = 0; m < los.r_point.size(); ++m) {
        x.push_back(std::log(static_cast<long double>(los.r_point[m])));
        w.push_back(los.weight[m]);
    }
    const auto fast = mwsep::cpu::fast_recurrence(los, n);
    const auto slow = mwsep::cpu::discrete_recurrence(x, w, n);
    EXPECT_EQ(fast.centre, slow.centre);
    EXPECT_EQ(fast.half_width, slow.half_width);
    EXPECT_LE(std::fabs(static_cast<double>(fast.mass / slow.mass - 1)), 1e-16);
    for (int k = 0; k < n; ++k) {
        EXPECT_LE(std::fabs(static_cast<double>(fast.alpha[k] - slow.alpha[k])), 1e-16) << "alpha " << k;
        if (k + 1 < n) {
            EXPECT_LE(std::fabs(static_cast<double>(fast.beta[k] - slow.beta[k])), 1e-16) << "beta " << k;
        }
    }
    const auto a = mwsep::cpu::build_ladder(los), b = mwsep::cpu::build_ladder_reference(los);
    for (int level = 0; level < std::min(a.levels(), b.levels()) && a.size[level] <= n; ++level) {
        ASSERT_EQ(a.size[level], b.size[level]);
        for (int i = 0; i < a.size[level]; ++i) {
            EXPECT_LE(std::fabs(static_cast<double>(a.rule[level].x[i] - b.rule[level].x[i])), 1e-16)
                << "level " << a.size[level] << " node " << i;
            EXPECT_LE(std::fabs(static_cast<double>((a.rule[level].weight[i] - b.rule[level].weight[i]) / slow.mass)), 1e-16)
                << "level " << a.size[level] << " weight " << i;
        }
    }
}

/// The integrators' results and the controller's account.
struct Compared {
    mwsep::model::Integrals exact, extended, compressed;
    CompressedReport report;
};

/// The compressed integrals of @p s against the extended-precision integrator (every point and sum in long
/// double with the direct formulas: the accuracy reference), within the target 1e-13, printed with the
/// controller's stated error and, beside them, the exact double-precision fast integrator's own distance
/// from the reference. The fast integrator evaluates the stream exponent as an expanded quadratic in r,
/// which loses digits near a narrow stream (about 4e-12 of the integral at sigma 0.1 kpc); it is held to
/// 1e-11 of the reference, the compressed quadrature (vertex form) to the target.
Compared expect_matches_exact(const mwsep::geometry::IntegrationSetup& s, const std::string& what) {
    constexpr double target = 1e-13;
    Compared out;
    out.exact = mwsep::cpu::integrate_fast(s, 2);
    out.extended = mwsep::cpu::integrate_extended(s, 2);
    out.compressed = mwsep::cpu::integrate_compressed(s, 2, {}, &out.report);
    const auto& truth = out.extended;
    const auto& comp = out.compressed;
    const CompressedReport& rep = out.report;
    EXPECT_FALSE(rep.all_exact);
    const double e_bg = relative_difference(comp.background, truth.background);
    const double f_bg = relative_difference(out.exact.background, truth.background);
    EXPECT_LE(e_bg, target) << what << ": background";
    EXPECT_LE(f_bg, 1e-11) << what << ": background of the fast integrator";
    std::printf("%s: background measured %.2e (fast %.2e) stated %.2e, %lld/%lld exact", what.c_str(), e_bg, f_bg,
                rep.stated_error[0], rep.fallbacks[0], rep.cells[0]);
    EXPECT_EQ(comp.streams.size(), truth.streams.size());
    for (std::size_t t = 0; t < truth.streams.size(); ++t) {
        const double e = relative_difference(comp.streams[t], truth.streams[t]);
        const double f = relative_difference(out.exact.streams[t], truth.streams[t]);
        EXPECT_LE(e, target) << what << ": stream " << t + 1;
        EXPECT_LE(f, 1e-11) << what << ": stream " << t + 1 << " of the fast integrator";
        std::printf("; stream %zu measured %.2e (fast %.2e) stated %.2e, %lld/%lld exact", t + 1, e, f,
                    rep.stated_error[1 + t], rep.fallbacks[1 + t], rep.cells[1 + t]);
    }
    std::printf("\n");
    return out;
}

TEST(CompressedIntegrator, MatchesExactOnTheTinyUnit) {
    const auto rep = expect_matches_exact(setup_of(tiny()), "tiny").report;
    // The smooth components need no exact fallback at all on this unit.
    EXPECT_EQ(rep.fallbacks[0], 0);
}

TEST(CompressedIntegrator, SameResultForAnyThreadCount) {
    const auto s = setup_of(tiny());
    const auto one = mwsep::cpu::integrate_compressed(s, 1);
    const auto two = mwsep::cpu::integrate_compressed(s, 3);
    EXPECT_EQ(one.background, two.background);
    for (std::size_t t = 0; t < one.streams.size(); ++t) EXPECT_EQ(one.streams[t], two.streams[t]);
}

TEST(CompressedIntegrator, RejectsBadTolerance) {
    const auto s = setup_of(tiny());
    EXPECT_THROW(mwsep::cpu::integrate_compressed(s, 1, {0.0}), std::invalid_argument);
    EXPECT_THROW(mwsep::cpu::integrate_compressed(s, 1, {NAN}), std::invalid_argument);
    EXPECT_THROW(mwsep::cpu::integrate_compressed(s, 1, {0.1}), std::invalid_argument);
}

TEST(CompressedIntegrator, LooseToleranceStillControlled) {
    // With a tolerance of 1e-8 the controller accepts lower levels; the stated error stays an upper
    // estimate of the measured one's order, and both are below the tolerance.
    const auto s = setup_of(tiny());
    const auto exact = mwsep::cpu::integrate_fast(s, 2);
    CompressedReport rep;
    const auto comp = mwsep::cpu::integrate_compressed(s, 2, {1e-8}, &rep);
    EXPECT_LE(relative_difference(comp.background, exact.background), 1e-8);
    EXPECT_LE(rep.stated_error[0], 1e-8);
    for (std::size_t t = 0; t < exact.streams.size(); ++t) {
        EXPECT_LE(relative_difference(comp.streams[t], exact.streams[t]), 1e-8) << "stream " << t + 1;
        EXPECT_LE(rep.stated_error[1 + t], 1e-8 + 1e-17);
    }
}

TEST(CompressedIntegrator, ModelsWithoutTheSightLineAlgebraTakeTheExactSum) {
    auto ap = tiny();
    ap.background_parameters[0] = 0.8;  // alpha != delta: the general power law
    const auto s = setup_of(ap);
    CompressedReport rep;
    const auto comp = mwsep::cpu::integrate_compressed(s, 2, {}, &rep);
    const auto exact = mwsep::cpu::integrate_fast(s, 2);
    EXPECT_TRUE(rep.all_exact);
    EXPECT_EQ(rep.fallbacks[0], rep.cells[0]);
    EXPECT_EQ(comp.background, exact.background);
}

class CompressedOracle : public testing::TestWithParam<std::string> {};

TEST_P(CompressedOracle, IntegralsAndLikelihoodMatchExact) {
    const auto dir = oracle_case(GetParam());
    auto ap = mwsep::model::read_astronomy_parameters(require_file(dir / "astronomy_parameters.txt").string());
    mwsep::model::apply_search_vector(
        ap, mwsep::model::read_search_parameters(require_file(dir / "search_parameters.txt").string()));
    for (const auto binning : {mwsep::model::RBinning::magnitude, mwsep::model::RBinning::kpc}) {
        const auto s = setup_of(ap, binning);
        const std::string what = GetParam() + (binning == mwsep::model::RBinning::kpc ? " (kpc)" : "");
        const Compared c = expect_matches_exact(s, what);
        const auto stars = mwsep::model::read_stars(oracle_stars(dir).string());
        const auto l_exact = mwsep::cpu::likelihood_fast(s, stars, c.extended, 2);
        const auto l_comp = mwsep::cpu::likelihood_fast(s, stars, c.compressed, 2);
        EXPECT_LE(relative_difference(l_comp.likelihood, l_exact.likelihood), integral_tolerance) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, CompressedOracle,
                         testing::Values("small_test11", "stripe20_reduced", "stripe20_1000stars", "stripe86_cut_reduced"));

TEST(CompressedIntegrator, MatchesExactAcrossTheFitBoxes) {
    // Candidates at the corners and centre of the boxes the fit searches (q, r0, and each stream's
    // distance and width, the narrowest sigma of the boxes included), on the tiny unit's grid.
    const auto base = tiny();
    struct Candidate { double q, r0, r_scale, sigma; };
    const std::vector<Candidate> candidates = {{0.3, 1.0, 1.0, 0.1},  {1.0, 30.0, 1.0, 0.1}, {0.57, 12.3, 0.5, 0.3},
                                               {0.57, 12.3, 1.5, 20.0}, {0.8, 5.0, 1.0, 0.76}, {0.4, 2.0, 0.2, 2.0}};
    for (const auto& c : candidates) {
        auto ap = base;
        ap.background_parameters[1] = c.q;
        ap.background_parameters[2] = c.r0;
        for (auto& st : ap.streams) {
            st.parameters[1] *= c.r_scale;
            st.parameters[4] = c.sigma;
        }
        char what[96];
        std::snprintf(what, sizeof what, "q %.2f r0 %.1f r x%.1f sigma %.2f", c.q, c.r0, c.r_scale, c.sigma);
        expect_matches_exact(setup_of(ap), what);
    }
}

}  // namespace

namespace {

testsupport::CommandOutcome mwsep_cli(const std::string& arguments) {
    return testsupport::shell(std::string(MWSEP_BINARY) + " " + arguments);
}

TEST(CompressedCommandLine, RunReportsTheControllerInJson) {
    const std::string unit = testsupport::workunit("tiny").string();
    const std::string stars = (testsupport::oracle_dir() / "stars" / "stars-20-first1000.txt").string();
    const auto o = mwsep_cli("run -a " + unit + " -s " + stars + " --cpu compressed --threads 2 --json 2>/dev/null");
    ASSERT_EQ(o.status, 0) << o.output;
    const auto j = testjson::Parser(o.output).parse();
    const auto& c = j["controller"];
    EXPECT_EQ(c["tolerance"].num, 1e-14);
    EXPECT_EQ(c["cells"].numbers().size(), 3u);  // background and two streams
    double fallbacks = 0;
    for (const double f : c["fallback_cells"].numbers()) fallbacks += f;
    EXPECT_EQ(c["fallbacks"].num, fallbacks);
    for (const double e : c["stated_relative_error"].numbers()) EXPECT_LE(e, 1e-14);
    EXPECT_EQ(j["settings"]["engine"].str, "cpu compressed");
}

TEST(CompressedCommandLine, ExtendedPrecisionRunsAndTakesNoCheckpoint) {
    const std::string unit = testsupport::workunit("tiny").string();
    const std::string stars = (testsupport::oracle_dir() / "stars" / "stars-20-first1000.txt").string();
    const auto o = mwsep_cli("run -a " + unit + " -s " + stars + " --cpu extended --threads 2 --json 2>/dev/null");
    ASSERT_EQ(o.status, 0) << o.output;
    const auto j = testjson::Parser(o.output).parse();
    EXPECT_EQ(j["settings"]["engine"].str, "cpu extended");
    EXPECT_GT(j["background_integral"].num, 0);
    const auto c = mwsep_cli("run -a " + unit + " -s " + stars + " --cpu extended --checkpoint /tmp/no-such-dir/x.ck 2>&1");
    EXPECT_EQ(c.status, 2) << c.output;  // a usage error (docs/cli.md)
    EXPECT_NE(c.output.find("takes no checkpoint"), std::string::npos) << c.output;
}

TEST(CompressedCommandLine, ToleranceIsCheckedBeforeAnyWork) {
    const std::string inputs = "-a no-such-unit.txt -s no-such-stars.txt";
    auto o = mwsep_cli("run " + inputs + " --tolerance 1e-12 2>&1");
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.output.find("--tolerance applies to --cpu compressed only"), std::string::npos) << o.output;
    o = mwsep_cli("run " + inputs + " --cpu compressed --tolerance 0 2>&1");
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.output.find("--tolerance must lie in (0, 1e-3]"), std::string::npos) << o.output;
}

}  // namespace
