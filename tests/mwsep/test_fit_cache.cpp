// The fit's integral cache: which parameters each component's key holds, which streams a candidate's launch
// carries and how the values are put back in place (with a stand-in integrator whose values are worked out
// from the parameters), a recomputed component that differs stops the fit, and the Hessian of the tiny
// unit on the CPU is the same bits with and without the cache, with the launches counted by hand.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <numbers>
#include <stdexcept>

#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/hessian.hpp"
#include "mwsep/fit/integral_cache.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "fit_catalogue.hpp"
#include "test_support.hpp"

namespace {

using mwsep::fit::IntegralCache;
using mwsep::model::Integrals;
using mwsep::model::Model;

/// A model of two streams with distinct values in every parameter.
Model two_streams() {
    Model m;
    m.background_weight = 0.1, m.q = 0.6, m.r0 = 12.0;
    m.streams = {{-1.5, 150.0, 20.0, 0.4, -0.5, 0.8}, {-2.5, 180.0, 24.0, 1.2, -1.6, 8.5}};
    return m;
}

/// Stand-in integrals worked out from the parameters (never the cache's own arithmetic): the background
/// from q and r0, a stream from its five parameters. @p launched records the streams of every call.
struct StandIn {
    std::vector<std::vector<double>> launched;  // per call: the mu of each stream it carried
    Integrals operator()(const Model& m) {
        Integrals out;
        out.background = 1.0 + m.q + 0.01 * m.r0;
        std::vector<double> mus;
        for (const auto& s : m.streams) {
            out.streams.push_back(0.5 + 1e-3 * s.mu + 1e-2 * s.r + s.theta * s.theta + s.phi * s.phi + s.sigma);
            mus.push_back(s.mu);
        }
        launched.push_back(mus);
        return out;
    }
};

void expect_stand_in_values(const Integrals& got, const Model& m) {
    StandIn fresh;
    const Integrals want = fresh(m);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(got.background), std::bit_cast<std::uint64_t>(want.background));
    ASSERT_EQ(got.streams.size(), want.streams.size());
    for (std::size_t s = 0; s < want.streams.size(); ++s)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(got.streams[s]), std::bit_cast<std::uint64_t>(want.streams[s])) << s;
}

TEST(FitIntegralCache, AKeyChangesWithItsOwnComponentsParametersOnly) {
    const Model m = two_streams();
    const auto k = mwsep::fit::component_keys(m);
    ASSERT_EQ(k.streams.size(), 2u);
    EXPECT_NE(k.streams[0], k.streams[1]);
    // Weights enter no integral.
    Model w = m;
    w.background_weight = 3.0, w.streams[0].weight = 2.0, w.streams[1].weight = -7.0;
    const auto kw = mwsep::fit::component_keys(w);
    EXPECT_EQ(kw.background, k.background);
    EXPECT_EQ(kw.streams, k.streams);
    // Each background shape parameter changes the background's key alone.
    for (double Model::*p : {&Model::q, &Model::r0, &Model::alpha, &Model::delta, &Model::aux_a, &Model::aux_b, &Model::aux_c}) {
        Model b = m;
        b.*p += 0.125;
        const auto kb = mwsep::fit::component_keys(b);
        EXPECT_NE(kb.background, k.background);
        EXPECT_EQ(kb.streams, k.streams);
    }
    Model aux = m;
    aux.aux_profile = true;
    EXPECT_NE(mwsep::fit::component_keys(aux).background, k.background);
    // Each of a stream's five parameters changes that stream's key alone.
    using S = mwsep::model::Stream;
    for (double S::*p : {&S::mu, &S::r, &S::theta, &S::phi, &S::sigma}) {
        Model s = m;
        s.streams[1].*p += 0.125;
        const auto ks = mwsep::fit::component_keys(s);
        EXPECT_EQ(ks.background, k.background);
        EXPECT_EQ(ks.streams[0], k.streams[0]);
        EXPECT_NE(ks.streams[1], k.streams[1]);
    }
}

TEST(FitIntegralCache, ACandidateLaunchesOnlyTheComponentsItChanges) {
    IntegralCache cache;
    StandIn integrator;
    const auto integrate = [&](const Model& m) { return integrator(m); };
    const Model a = two_streams();
    expect_stand_in_values(cache.integrals(a, integrate), a);  // nothing known: the whole candidate
    ASSERT_EQ(integrator.launched.size(), 1u);
    EXPECT_EQ(integrator.launched[0], (std::vector<double>{150.0, 180.0}));

    expect_stand_in_values(cache.integrals(a, integrate), a);  // everything known: no launch
    Model weights = a;
    weights.streams[1].weight = 4.0, weights.background_weight = -1.0;
    expect_stand_in_values(cache.integrals(weights, integrate), weights);
    EXPECT_EQ(integrator.launched.size(), 1u);

    Model second = a;  // the second stream moved: a launch of it alone, its value put back in second place
    second.streams[1].sigma = 9.0, second.streams[1].mu = 181.0;
    expect_stand_in_values(cache.integrals(second, integrate), second);
    ASSERT_EQ(integrator.launched.size(), 2u);
    EXPECT_EQ(integrator.launched[1], (std::vector<double>{181.0}));

    Model background = a;  // the background moved: one stream (the first, already known) carries it
    background.q = 0.7;
    expect_stand_in_values(cache.integrals(background, integrate), background);
    ASSERT_EQ(integrator.launched.size(), 3u);
    EXPECT_EQ(integrator.launched[2], (std::vector<double>{150.0}));

    Model both = second;  // the moved background and the moved second stream: both known by now
    both.q = 0.7;
    expect_stand_in_values(cache.integrals(both, integrate), both);
    EXPECT_EQ(integrator.launched.size(), 3u);

    Model swapped = a;  // the same streams in the other order: a stream's integral does not depend on its place
    std::swap(swapped.streams[0], swapped.streams[1]);
    expect_stand_in_values(cache.integrals(swapped, integrate), swapped);
    EXPECT_EQ(integrator.launched.size(), 3u);

    const auto w = cache.work();  // by hand: 1 whole, 2 partial (2 components each), 4 without a launch
    EXPECT_EQ(w.full, 1);
    EXPECT_EQ(w.partial, 2);
    EXPECT_EQ(w.none, 4);
    EXPECT_EQ(w.components, 3 + 2 + 2);
    EXPECT_EQ(w.reused, 0 + 3 + 3 + 1 + 1 + 3 + 3);
}

TEST(FitIntegralCache, AModelWithoutStreamsIntegratesItsBackgroundOnce) {
    IntegralCache cache;
    StandIn integrator;
    const auto integrate = [&](const Model& m) { return integrator(m); };
    Model m = two_streams();
    m.streams.clear();
    expect_stand_in_values(cache.integrals(m, integrate), m);
    expect_stand_in_values(cache.integrals(m, integrate), m);
    EXPECT_EQ(integrator.launched.size(), 1u);
    EXPECT_EQ(cache.work().full, 1);
    EXPECT_EQ(cache.work().none, 1);
}

TEST(FitIntegralCache, ARecomputedComponentWithOtherBitsStopsTheFit) {
    IntegralCache cache;
    // An integrator whose background depends on how many streams it carries: the cache must refuse it.
    const auto coupled = [](const Model& m) {
        Integrals out;
        out.background = 1.0 + 1e-15 * static_cast<double>(m.streams.size());
        for (std::size_t s = 0; s < m.streams.size(); ++s) out.streams.push_back(1.0 + m.streams[s].sigma);
        return out;
    };
    const Model a = two_streams();
    cache.integrals(a, coupled);
    Model b = a;
    b.streams[0].sigma = 0.9;
    EXPECT_THROW(cache.integrals(b, coupled), mwsep::fit::IntegralCacheMismatch);
}

TEST(FitIntegralCache, AnIntegralThatIsNotPositiveIsNeitherReturnedNorKept) {
    IntegralCache cache;
    int calls = 0;
    const auto zero_second = [&](const Model& m) {
        ++calls;
        Integrals out;
        out.background = 2.0;
        for (std::size_t s = 0; s < m.streams.size(); ++s) out.streams.push_back(s == 1 ? 0.0 : 1.0);
        return out;
    };
    const Model a = two_streams();
    EXPECT_THROW(cache.integrals(a, zero_second), std::runtime_error);
    EXPECT_THROW(cache.integrals(a, zero_second), std::runtime_error);
    EXPECT_EQ(calls, 2);  // nothing was kept: the second call integrated again
    EXPECT_EQ(cache.work().full + cache.work().partial + cache.work().none, 0);
}

TEST(FitIntegralCache, AStreamsSkipThresholdsAreTheSameBitsWithoutTheOtherStreams) {
    // The cache launches a stream with other companions than before, and the GPU evaluator computes a
    // candidate's thresholds ahead, stream by stream: both need each stream's thresholds independent of the rest.
    for (const std::string unit : {"tiny", "3s-small"}) {
        const auto ap = mwsep::model::read_astronomy_parameters(testsupport::workunit(unit).string());
        const auto setup = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
        ASSERT_GE(setup.streams.size(), 2u);
        for (const auto& area : setup.areas) {
            const auto los = mwsep::geometry::fold_line_of_sight(area);
            const auto together = mwsep::likelihood::stream_skip_thresholds(setup, area, los, 2);
            for (std::size_t s = 0; s < setup.streams.size(); ++s) {
                const auto alone = mwsep::likelihood::stream_skip_thresholds({setup.streams[s]}, area, los, 1);
                ASSERT_EQ(alone.size(), 1u);
                EXPECT_GT(together[s], 0.0) << unit << " stream " << s;
                EXPECT_EQ(std::bit_cast<std::uint64_t>(alone[0]), std::bit_cast<std::uint64_t>(together[s]))
                    << unit << " stream " << s;
            }
            // In the other order, too.
            const auto reversed = mwsep::likelihood::stream_skip_thresholds({setup.streams.rbegin(), setup.streams.rend()}, area, los, 3);
            for (std::size_t s = 0; s < setup.streams.size(); ++s)
                EXPECT_EQ(std::bit_cast<std::uint64_t>(reversed[setup.streams.size() - 1 - s]),
                          std::bit_cast<std::uint64_t>(together[s]));
        }
    }
}

/// The tiny unit (2 streams) with the background's q and r0 and every stream parameter optimised: 14.
mwsep::fit::FitData tiny_all_parameters() {
    mwsep::fit::FitData data;
    data.work_unit = mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string());
    for (auto& s : data.work_unit.streams) s.min[3] = -2 * std::numbers::pi;  // the file's phi lies below 0
    data.stars = fittest::drawn_catalogue(data.work_unit, 300);
    return data;
}

TEST(FitIntegralCache, TheHessianOfTheTinyUnitIsTheSameBitsWithAndWithoutTheCache) {
    auto data = tiny_all_parameters();
    const auto space = mwsep::fit::fit_space(data.work_unit);
    ASSERT_EQ(space.size(), 14u) << "q, r0, and weight + 5 parameters of each of 2 streams";
    std::vector<double> width(space.size());
    for (std::size_t i = 0; i < width.size(); ++i) width[i] = space.upper[i] - space.lower[i];
    data.integral_cache = false;
    auto plain = mwsep::fit::make_cpu_evaluator(data, 1);
    const auto without = mwsep::fit::uncertainty_at(*plain, space.start, width, 1e-3, data.stars.size());
    EXPECT_FALSE(plain->integral_work().has_value());
    auto cached_data = data;
    cached_data.integral_cache = true;
    auto cached = mwsep::fit::make_cpu_evaluator(cached_data, 1);  // one thread: the batch in order
    const auto with = mwsep::fit::uncertainty_at(*cached, space.start, width, 1e-3, data.stars.size());
    ASSERT_EQ(with.steps, without.steps);
    ASSERT_EQ(with.hessian.size(), without.hessian.size());
    for (std::size_t k = 0; k < with.hessian.size(); ++k)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(with.hessian[k]), std::bit_cast<std::uint64_t>(without.hessian[k])) << k;
    // By hand, for 14 parameters (2 of the background, 2 weights, 5 per stream): the first stencil (29
    // candidates) integrates x whole, 4 background and 20 stream steps with one stream each, and takes the 4
    // weight steps from the cache; the full stencil (393) has x (cached), the 28 steps again with the new
    // steps (24 launches) and 364 pairs, of which only the pairs within one component launch: 1 pair of the
    // background and 10 of each stream, 4 signs each (84). A parameter whose curvature was not negative at
    // the first step keeps that step, so its two steps of the full stencil come from the cache.
    long long kept = 0;
    for (std::size_t i = 0; i < space.size(); ++i)
        if (!space.names[i].ends_with("epsilon") && with.steps[i] == 1e-3 * width[i]) ++kept;
    ASSERT_TRUE(cached->integral_work().has_value());
    const auto w = *cached->integral_work();
    EXPECT_EQ(w.full, 1);
    EXPECT_EQ(w.partial, 24 + (24 - 2 * kept) + 84);
    EXPECT_EQ(w.none, 4 + 1 + (4 + 2 * kept) + (364 - 84));
    EXPECT_EQ(w.components, 3 + 2 * (24 + (24 - 2 * kept) + 84));
    EXPECT_EQ(w.full + w.partial + w.none, static_cast<long long>(with.evaluations));
}

}  // namespace
