// The reference, fast and extended-precision CPU integrators agree on models the oracle does not cover
// (general power law, auxiliary term, no stream, five streams, cuts), and the fast and extended ones are
// independent of their thread count.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/cpu/worker_pool.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/math/sightline.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "test_support.hpp"

namespace {

using namespace testsupport;
using mwsep::model::AstronomyParameters;

AstronomyParameters tiny() { return mwsep::model::read_astronomy_parameters(workunit("tiny").string()); }

mwsep::geometry::IntegrationSetup setup_of(const AstronomyParameters& ap) {
    return mwsep::geometry::make_setup(mwsep::model::build_model(ap));
}

void expect_agree(const mwsep::geometry::IntegrationSetup& s, double tol = 1e-12) {
    const auto ref = mwsep::cpu::integrate_reference(s);
    const auto fast = mwsep::cpu::integrate_fast(s, 2);
    EXPECT_LE(relative_difference(fast.background, ref.background), tol);
    ASSERT_EQ(fast.streams.size(), ref.streams.size());
    for (std::size_t i = 0; i < ref.streams.size(); ++i)
        EXPECT_LE(relative_difference(fast.streams[i], ref.streams[i]), tol) << "stream " << i + 1;
    // The extended-precision integrator (long double, direct formulas, its own code path) on the same models.
    const auto ext = mwsep::cpu::integrate_extended(s, 2);
    EXPECT_LE(relative_difference(ext.background, ref.background), tol);
    ASSERT_EQ(ext.streams.size(), ref.streams.size());
    for (std::size_t i = 0; i < ref.streams.size(); ++i)
        EXPECT_LE(relative_difference(ext.streams[i], ref.streams[i]), tol) << "stream " << i + 1 << " (extended)";
}

TEST(Integrators, AgreeOnTinyUnit) { expect_agree(setup_of(tiny())); }

TEST(Integrators, AgreeOnGeneralPowerLaw) {
    auto ap = tiny();
    ap.background_parameters[0] = 0.8;  // alpha
    ap.background_parameters[3] = 1.3;  // delta
    const auto s = setup_of(ap);
    EXPECT_FALSE(s.hernquist_fast_path);
    expect_agree(s);
}

TEST(Integrators, AgreeWithAuxiliaryProfile) {
    auto ap = tiny();
    ap.background_parameters = {1.0, 0.57, 12.3, 1.0, 1e-6, 2e-6, 3e-6};
    ap.background_step = ap.background_min = ap.background_max = std::vector<double>(7, 0.0);
    ap.optimize_background = std::vector<int>(7, 0);
    ap.aux_bg_profile = 1;
    expect_agree(setup_of(ap));
}

TEST(Integrators, AgreeWithoutStreams) {
    auto ap = tiny();
    ap.streams.clear();
    expect_agree(setup_of(ap));
}

TEST(Integrators, AgreeWithFiveStreams) {
    auto ap = tiny();
    while (ap.streams.size() < 5) {
        auto extra = ap.streams[0];
        extra.parameters[1] += static_cast<double>(ap.streams.size());
        ap.streams.push_back(extra);
    }
    expect_agree(setup_of(ap));
}

TEST(Integrators, AgreeWithCuts) {
    auto ap = tiny();
    mwsep::model::Area cut = ap.main;
    cut.mu = {150.0, 160.0, 8};
    cut.nu.steps = 4;
    cut.r.steps = 10;
    ap.cuts.push_back(cut);
    const auto with_cut = setup_of(ap);
    expect_agree(with_cut);
    // Subtracting a cut must lower every integral.
    const auto full = mwsep::cpu::integrate_reference(setup_of(tiny()));
    const auto cut_result = mwsep::cpu::integrate_reference(with_cut);
    EXPECT_LT(cut_result.background, full.background);
}

TEST(Integrators, ExtendedResultDoesNotDependOnThreadCount) {
    const auto s = setup_of(tiny());
    const auto one = mwsep::cpu::integrate_extended(s, 1);
    const auto three = mwsep::cpu::integrate_extended(s, 3);
    EXPECT_EQ(three.background, one.background);
    EXPECT_EQ(three.streams, one.streams);
}

TEST(Integrators, FastResultDoesNotDependOnThreadCount) {
    const auto s = setup_of(tiny());
    const auto one = mwsep::cpu::integrate_fast(s, 1);
    for (int threads : {2, 3, 7}) {
        const auto many = mwsep::cpu::integrate_fast(s, threads);
        EXPECT_EQ(many.background, one.background) << threads << " threads";
        EXPECT_EQ(many.streams, one.streams) << threads << " threads";
    }
}

// Skipping provably negligible stream terms moves no integral beyond 1e-13 relative, on the oracle unit
// with two narrow streams (most cells lie far from their axes) and on the tiny unit.
TEST(Integrators, SkippingNegligibleStreamTermsChangesNothingVisible) {
    const auto oracle = require_file(oracle_case("small_test11") / "astronomy_parameters.txt");
    const std::vector<mwsep::geometry::IntegrationSetup> setups{
        setup_of(tiny()), mwsep::geometry::make_setup(mwsep::model::build_model(
                              mwsep::model::read_astronomy_parameters(oracle.string())))};
    for (const auto& s : setups) {
        const auto skipped = mwsep::cpu::integrate_fast(s, 2, {}, true);
        const auto full = mwsep::cpu::integrate_fast(s, 2, {}, false);
        EXPECT_EQ(skipped.background, full.background);
        for (std::size_t i = 0; i < full.streams.size(); ++i)
            EXPECT_LE(relative_difference(skipped.streams[i], full.streams[i]), 1e-13) << "stream " << i + 1;
    }
}

// The skip count: a zero threshold keeps every bin, an infinite one none, and the real thresholds keep
// every bin of a stream whose terms are nowhere negligible and fewer of the others.
TEST(Integrators, ActiveStreamBinsCountWhatTheBoundKeeps) {
    const auto s = setup_of(tiny());
    const auto& a = s.areas[0];
    const auto los = mwsep::geometry::fold_line_of_sight(a);
    const std::size_t all = a.cells() * los.block_weight.size();
    const std::vector<double> zero(s.streams.size(), 0.0), infinite(s.streams.size(), INFINITY);
    for (auto n : mwsep::likelihood::active_stream_bins(s, a, los, zero)) EXPECT_EQ(n, all);
    for (auto n : mwsep::likelihood::active_stream_bins(s, a, los, infinite)) EXPECT_EQ(n, 0u);
    for (auto n : mwsep::likelihood::active_stream_bins(s, a, los, mwsep::likelihood::stream_skip_thresholds(s, a, los)))
        EXPECT_LE(n, all);
}

// The skip thresholds against a search written out here, which takes every cell's bound (ids x the weights' sum
// x stream_term_bound(), the exponential of every cell) and the first strictly largest, then the exact sum of
// that cell in point order: the same bits for the units' own streams and for streams moved about the wedge and
// narrowed or widened (the search in stream_skipping.cpp leaves out the exponentials of cells that cannot win).
TEST(Integrators, SkipThresholdsAreThoseOfTheSearchOverEveryCell) {
    const auto threshold_of = [](const mwsep::geometry::StreamGeometry& g, const mwsep::geometry::AreaTables& a,
                                 const mwsep::geometry::FoldedLineOfSight& los) {
        double best = -1;
        std::size_t cell = 0;
        for (std::size_t p = 0; p < a.cells(); ++p) {
            const double cbcl = a.cosb[p] * a.cosl[p], cbsl = a.cosb[p] * a.sinl[p];
            const auto e = mwsep::math::stream_exponent_quadratic(cbcl, cbsl, a.sinb[p], g.centre, g.axis, g.inv_two_sigma_sq);
            const double bound = a.ids[p % a.n_nu()] * los.weight_sum * mwsep::math::stream_term_bound(e, los.r_min, los.r_max);
            if (bound > best) best = bound, cell = p;
        }
        double exact = 0;
        for (std::size_t m = 0; m < los.r_point.size(); ++m) {
            const auto pos = mwsep::math::point_position(los.r_point[m], a.cosb[cell] * a.cosl[cell], a.cosb[cell] * a.sinl[cell],
                                                         a.sinb[cell]);
            exact += los.weight[m] * std::exp(-mwsep::math::stream_distance_squared(pos, g.centre, g.axis) * g.inv_two_sigma_sq);
        }
        exact *= a.ids[cell % a.n_nu()];
        return std::ldexp(exact, -60) / (static_cast<double>(a.cells()) * static_cast<double>(a.r.n_r));
    };
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> shift(-6.0, 6.0), widen(0.05, 20.0);
    mwsep::cpu::WorkerPool pool(4);
    int compared = 0;
    for (const char* unit : {"tiny", "2s-small", "3s-small"}) {
        const auto s = setup_of(mwsep::model::read_astronomy_parameters(workunit(unit).string()));
        for (int variant = 0; variant < 6; ++variant) {
            auto streams = s.streams;
            if (variant > 0)
                for (auto& g : streams) {
                    g.centre = {g.centre.x + shift(rng), g.centre.y + shift(rng), g.centre.z + shift(rng)};
                    g.inv_two_sigma_sq /= widen(rng);
                    g.two_sigma_sq = 1 / g.inv_two_sigma_sq;
                }
            for (const auto& a : s.areas) {
                const auto los = mwsep::geometry::fold_line_of_sight(a);
                for (unsigned threads : {1u, 3u}) {
                    const auto got = mwsep::likelihood::stream_skip_thresholds(streams, a, los, threads);
                    ASSERT_EQ(got.size(), streams.size());
                    for (std::size_t t = 0; t < streams.size(); ++t, ++compared)
                        EXPECT_EQ(got[t], threshold_of(streams[t], a, los))
                            << unit << " variant " << variant << " stream " << t + 1 << ", " << threads << " threads";
                }
                // The fit's way: the same pool's threads for one search after another.
                const auto pooled = mwsep::likelihood::stream_skip_thresholds(streams, a, los, pool);
                ASSERT_EQ(pooled.size(), streams.size());
                for (std::size_t t = 0; t < streams.size(); ++t, ++compared)
                    EXPECT_EQ(pooled[t], threshold_of(streams[t], a, los))
                        << unit << " variant " << variant << " stream " << t + 1 << ", a pool of " << pool.threads();
            }
        }
    }
    EXPECT_GE(compared, 90);
}

TEST(Integrators, KpcBinningChangesTheIntegralSlightly) {
    auto ap = tiny();
    const auto mag = mwsep::cpu::integrate_reference(mwsep::geometry::make_setup(mwsep::model::build_model(ap)));
    const auto kpc = mwsep::cpu::integrate_reference(
        mwsep::geometry::make_setup(mwsep::model::build_model(ap, mwsep::model::RBinning::kpc)));
    EXPECT_NE(mag.background, kpc.background);
    EXPECT_LT(relative_difference(kpc.background, mag.background), 0.05);
}

TEST(Integrators, LikelihoodRejectsNonPositiveIntegrals) {
    const auto s = setup_of(tiny());
    mwsep::model::StarCatalogue stars{{10.0}, {50.0}, {10.0}};
    mwsep::model::Integrals bad{0.0, {1.0, 1.0}};
    EXPECT_THROW(mwsep::cpu::likelihood_reference(s, stars, bad), std::runtime_error);
    EXPECT_THROW(mwsep::cpu::likelihood_fast(s, stars, bad, 1), std::runtime_error);
}

}  // namespace

namespace {

// Three stars of the tiny unit's stripe; the middle one at @p middle_r kpc.
mwsep::model::StarCatalogue three_stars(double middle_r) {
    mwsep::model::StarCatalogue stars;
    stars.l = {16.5, 16.8, 17.1};
    stars.b = {75.4, 75.1, 74.9};
    stars.r = {10.0, middle_r, 20.0};
    return stars;
}

// Runs @p likelihood, which must throw, and returns its message.
template <class F>
std::string failure_of(F likelihood) {
    try {
        likelihood();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    ADD_FAILURE() << "no exception: a non-finite likelihood was returned";
    return {};
}

}  // namespace

// A star so far away that its density is NaN must make both likelihoods fail, naming the count.
TEST(Likelihoods, NonFiniteStarTermsFailWithTheirCount) {
    const auto s = setup_of(tiny());
    const auto integrals = mwsep::cpu::integrate_fast(s, 2);
    const auto stars = three_stars(1e104);
    const std::string ref = failure_of([&] { mwsep::cpu::likelihood_reference(s, stars, integrals); });
    const std::string fast = failure_of([&] { mwsep::cpu::likelihood_fast(s, stars, integrals, 2); });
    EXPECT_NE(ref.find("1 of 3 stars"), std::string::npos) << ref;
    EXPECT_NE(fast.find("1 of 3 stars"), std::string::npos) << fast;
    EXPECT_NE(fast.find("star 1"), std::string::npos) << fast;
}

// The mixture depends only on differences of the epsilons (spec 4.2): adding one constant to every weight
// leaves the likelihood and its diagnostics unchanged, also where exp(epsilon) alone would overflow (above
// about 709.8) or vanish (below about -745) (the probe's finding F2).
TEST(Likelihoods, ACommonShiftOfTheWeightsChangesNothing) {
    const auto base_ap = tiny();
    const auto s0 = setup_of(base_ap);
    const auto integrals = mwsep::cpu::integrate_fast(s0, 2);
    const auto stars = three_stars(15.0);
    const auto ref0 = mwsep::cpu::likelihood_reference(s0, stars, integrals);
    const auto fast0 = mwsep::cpu::likelihood_fast(s0, stars, integrals, 1);
    for (double c : {-745.5, -740.0, -300.0, 300.0, 709.7, 710.0, 1e4}) {
        auto ap = base_ap;
        ap.background_weight += c;
        for (auto& st : ap.streams) st.weight += c;
        const auto s = setup_of(ap);
        const auto ref = mwsep::cpu::likelihood_reference(s, stars, integrals);
        const auto fast = mwsep::cpu::likelihood_fast(s, stars, integrals, 1);
        // Adding c to each epsilon rounds it (by up to half an ulp of c): a relative change of about 1e-13.
        EXPECT_NEAR(ref.likelihood, ref0.likelihood, 1e-12 * std::abs(ref0.likelihood)) << "shift " << c;
        EXPECT_NEAR(fast.likelihood, fast0.likelihood, 1e-12 * std::abs(fast0.likelihood)) << "shift " << c;
        // The diagnostics (spec 4.6) compare the unshifted (P / I) exp(epsilon) with 1e-15, an absolute
        // threshold: a term that passes it passes it still when every epsilon grows, and its value
        // log10(u / Sigma_E) does not change; shifted down, terms fall below it, as they did in 2009.
        if (c > 0) {
            EXPECT_NEAR(ref.background_likelihood, ref0.background_likelihood,
                        1e-12 * std::abs(ref0.background_likelihood)) << "shift " << c;
        }
        EXPECT_EQ(ref.zero_probability_stars, ref0.zero_probability_stars) << "shift " << c;
    }
}

// A weight that is not a number leaves no mixture: every star's term is NaN, and all of them are counted.
TEST(Likelihoods, ANonFiniteWeightFailsForEveryStar) {
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        const auto integrals = mwsep::cpu::integrate_fast(setup_of(tiny()), 2);
        // build_model refuses a non-finite weight; set on the built model, to test the likelihood's own guard.
        auto m = mwsep::model::build_model(tiny());
        m.background_weight = bad;
        const auto s = mwsep::geometry::make_setup(m);
        const auto stars = three_stars(15.0);
        const std::string fast = failure_of([&] { mwsep::cpu::likelihood_fast(s, stars, integrals, 1); });
        EXPECT_NE(fast.find("3 of 3 stars"), std::string::npos) << fast;
        const std::string ref = failure_of([&] { mwsep::cpu::likelihood_reference(s, stars, integrals); });
        EXPECT_NE(ref.find("3 of 3 stars"), std::string::npos) << ref;
    }
}

// The likelihood alone (no densities, as the fit's GPU evaluator assembles it) is the same sum as the full
// assembly's, bit for bit, and carries no diagnostics; the full one is the reference integrator's.
TEST(Likelihoods, TheLikelihoodAloneIsTheFullAssemblysLikelihood) {
    const auto s = setup_of(tiny());
    const auto integrals = mwsep::cpu::integrate_fast(s, 2);
    const auto stars = three_stars(15.0);
    const auto w = mwsep::likelihood::mixture_weights(s.model);
    mwsep::likelihood::LikelihoodAssembly<mwsep::likelihood::PlainSum> full(w, integrals), alone(w, integrals);
    std::vector<double> dens(1 + s.streams.size());
    for (std::size_t i = 0; i < stars.size(); ++i) {
        mwsep::likelihood::star_densities(s, stars.l[i], stars.b[i], stars.r[i], dens.data());
        bool zero = false;
        const double lp = mwsep::likelihood::star_log_probability(w, integrals, dens.data(), zero);
        full.add_star(lp, zero, dens.data());
        alone.add_star(lp, zero, nullptr);
    }
    const auto a = full.result(), b = alone.result();
    EXPECT_EQ(a.likelihood, mwsep::cpu::likelihood_reference(s, stars, integrals).likelihood);
    EXPECT_EQ(b.likelihood, a.likelihood);
    EXPECT_EQ(b.zero_probability_stars, a.zero_probability_stars);
    EXPECT_TRUE(std::isnan(b.background_likelihood));
    EXPECT_TRUE(b.stream_only.empty());
    EXPECT_EQ(a.stream_only.size(), s.streams.size());
    EXPECT_FALSE(std::isnan(a.background_likelihood));
}

// The same stars at ordinary distances give a finite likelihood from both.
TEST(Likelihoods, FiniteStarTermsGiveAFiniteLikelihood) {
    const auto s = setup_of(tiny());
    const auto integrals = mwsep::cpu::integrate_fast(s, 2);
    const auto stars = three_stars(15.0);
    EXPECT_TRUE(std::isfinite(mwsep::cpu::likelihood_reference(s, stars, integrals).likelihood));
    EXPECT_TRUE(std::isfinite(mwsep::cpu::likelihood_fast(s, stars, integrals, 2).likelihood));
}

namespace {

// Lets only @p n more worker threads start while it lives, as a system limit on threads would.
struct ThreadStartLimit {
    explicit ThreadStartLimit(int n) { harness::detail::thread_starts_left.store(n); }
    ~ThreadStartLimit() { harness::detail::thread_starts_left.store(-1); }
};

}  // namespace

// A refused thread start must not abort: the loop runs every index once on the threads that did start.
TEST(ThreadPool, RefusedThreadStartsRunTheLoopOnFewerThreads) {
    for (int allowed : {0, 1, 3}) {
        const ThreadStartLimit limit(allowed);
        std::vector<std::atomic<int>> runs(1000);
        mwsep::cpu::parallel_for(runs.size(), 8, [&](std::size_t i) { runs[i].fetch_add(1); });
        for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << "index " << i << ", allowed " << allowed;
    }
}

// A pool's threads start once and run loop after loop: every index of every loop exactly once (counted by
// index), the calling thread taking part; a body's exception reaches the caller and the pool runs on; two
// callers at once get whole loops each; workers the system refuses leave a smaller pool that still works; in
// loops that end before the workers wake, and the loops after them, every index still runs exactly once.
TEST(WorkerPool, RunsEveryIndexOfEveryLoopOnce) {
    for (int allowed : {-1, 0, 2}) {
        const ThreadStartLimit limit(allowed);
        mwsep::cpu::WorkerPool pool(5);
        EXPECT_EQ(pool.threads(), allowed < 0 ? 5u : static_cast<unsigned>(allowed) + 1) << "allowed " << allowed;
        for (std::size_t n : {0u, 1u, 2u, 7u, 1000u}) {
            for (int loop = 0; loop < 20; ++loop) {
                std::vector<std::atomic<int>> runs(n);
                pool.run(n, [&](std::size_t i) { runs[i].fetch_add(1); });
                for (std::size_t i = 0; i < n; ++i)
                    ASSERT_EQ(runs[i].load(), 1) << "index " << i << " of " << n << ", loop " << loop << ", allowed " << allowed;
            }
        }
        // Loops shorter than a worker takes to wake: a worker finds most of them closed when it wakes, and must
        // neither run a closed loop's body nor miss the loops after it (a pause now and then lets them sleep).
        for (int loop = 0; loop < 3000; ++loop) {
            const std::size_t n = 1 + loop % 3;
            std::vector<std::atomic<int>> runs(n);
            pool.run(n, [&](std::size_t i) { runs[i].fetch_add(1); });
            for (std::size_t i = 0; i < n; ++i)
                ASSERT_EQ(runs[i].load(), 1) << "index " << i << " of short loop " << loop << ", allowed " << allowed;
            if (loop % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        EXPECT_THROW(pool.run(100, [](std::size_t i) { if (i == 37) throw std::runtime_error("body 37"); }), std::runtime_error);
        std::atomic<int> after{0};
        pool.run(50, [&](std::size_t) { after.fetch_add(1); });
        EXPECT_EQ(after.load(), 50);
    }
    mwsep::cpu::WorkerPool shared(3);
    std::vector<std::atomic<int>> a(500), b(500);
    std::thread other([&] { for (int k = 0; k < 50; ++k) shared.run(a.size(), [&](std::size_t i) { a[i].fetch_add(1); }); });
    for (int k = 0; k < 50; ++k) shared.run(b.size(), [&](std::size_t i) { b[i].fetch_add(1); });
    other.join();
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(a[i].load() == 50 && b[i].load() == 50) << "index " << i;
}

// With starts refused, the fast integrator and likelihood still give the bit-identical result.
TEST(ThreadPool, RefusedThreadStartsLeaveTheResultUnchanged) {
    const auto s = setup_of(tiny());
    const auto expected = mwsep::cpu::integrate_fast(s, 4);
    const auto stars = three_stars(15.0);
    const double expected_l = mwsep::cpu::likelihood_fast(s, stars, expected, 4).likelihood;
    const ThreadStartLimit limit(1);
    const auto got = mwsep::cpu::integrate_fast(s, 4);
    EXPECT_EQ(got.background, expected.background);
    EXPECT_EQ(got.streams, expected.streams);
    EXPECT_EQ(mwsep::cpu::likelihood_fast(s, stars, got, 4).likelihood, expected_l);
}

// A stream centre so far away that the squares of its distance overflow gives a NaN exponent. Both CPU
// integrators must carry that NaN into the stream's integral (which the likelihood then refuses), not
// clamp it to exp(0) = 1 and report the integral of the weights alone (the probe's finding F3).
TEST(Integrators, ANaNStreamExponentGivesANaNIntegralInBoth) {
    // Beyond the model's limits (build_model refuses it): set on the built model, to test the integrators' own guard.
    auto m = mwsep::model::build_model(tiny());
    ASSERT_FALSE(m.streams.empty());
    m.streams.front().r = 1e200;  // r of the stream centre, kpc
    const auto s = mwsep::geometry::make_setup(m);
    const auto ref = mwsep::cpu::integrate_reference(s);
    const auto fast = mwsep::cpu::integrate_fast(s, 2);
    EXPECT_TRUE(std::isnan(ref.streams.front())) << ref.streams.front();
    EXPECT_TRUE(std::isnan(fast.streams.front())) << fast.streams.front();
    EXPECT_TRUE(std::isfinite(fast.background));
    EXPECT_THROW(mwsep::likelihood::check_integrals(fast), std::runtime_error);
}
