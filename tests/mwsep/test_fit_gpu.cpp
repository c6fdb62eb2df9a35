// mwsep fit on the GPU: the resident evaluator (tables and stars uploaded once, only the stream constants
// and skip thresholds per candidate) gives bit for bit what cuda::evaluate() gives for the same vector,
// whatever candidate it evaluated before, and a batch gives the same values on one device, on every
// device, or one candidate at a time; the values agree with the CPU's fast evaluator to 1e-12 relative.
// Without a GPU every test skips with a visible message.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <utility>

#include "harness/device_memory.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/devices.hpp"
#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/hessian.hpp"
#include "mwsep/fit/optimizer.hpp"
#include "mwsep/fit/resident_device.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/likelihood_kernel.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "fit_catalogue.hpp"
#include "test_support.hpp"
#include "gpu_support.hpp"

namespace {

using testsupport::have_gpu;

#define REQUIRE_GPU()                                                                  \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: the resident fit evaluator is not tested here"

/// A small unit with every stream's weight, mu, r and sigma optimised (angles' bounds widened), and a
/// catalogue drawn from it.
mwsep::fit::FitData fit_data(const std::string& unit, std::size_t stars) {
    mwsep::fit::FitData data;
    data.work_unit = mwsep::model::read_astronomy_parameters(testsupport::workunit(unit).string());
    for (auto& b : data.work_unit.optimize_background) b = 0;
    for (auto& s : data.work_unit.streams) {
        s.optimize_weight = true;
        for (std::size_t j = 0; j < s.optimize.size(); ++j) s.optimize[j] = j < 2;
        s.min[3] = -2 * std::numbers::pi;
        s.max[3] = 2 * std::numbers::pi;
    }
    data.stars = fittest::drawn_catalogue(data.work_unit, stars);
    return data;
}

/// Candidates around the unit's own values: each parameter moved by a few per cent of its range.
mwsep::fit::Batch candidates(const mwsep::fit::FitData& data) {
    const auto space = mwsep::fit::fit_space(data.work_unit, true);
    mwsep::fit::Batch batch;
    for (int k = 0; k < 5; ++k) {
        auto x = space.start;
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] += 0.02 * (space.upper[i] - space.lower[i]) * std::sin(1.7 * (k + 1) + 0.9 * i);
        batch.push_back(x);
    }
    return batch;
}

mwsep::model::Model model_of(const mwsep::fit::FitData& data, const std::vector<double>& x) {
    return mwsep::model::build_model(mwsep::fit::with_parameters(data.work_unit, x), data.r_binning);
}

void expect_resident_matches_evaluate(const std::string& unit, const std::string& variant = "modern-f64") {
    const auto data = fit_data(unit, 2000);
    const auto batch = candidates(data);
    const auto base = mwsep::geometry::make_setup(model_of(data, batch[0]));
    mwsep::fit::ResidentDevice device(base, data.stars, variant, 0);
    // Each candidate twice, in an order that changes the parameters every time.
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t k = 0; k < batch.size(); ++k) {
            const auto m = model_of(data, batch[(k * 3 + pass) % batch.size()]);
            const auto resident = device.evaluate(m);
            const auto fresh = mwsep::cuda::evaluate(mwsep::geometry::make_setup(m), data.stars, variant, 0);
            EXPECT_EQ(resident.integrals.background, fresh.integrals.background) << unit << " candidate " << k;
            ASSERT_EQ(resident.integrals.streams.size(), fresh.integrals.streams.size());
            for (std::size_t s = 0; s < fresh.integrals.streams.size(); ++s)
                EXPECT_EQ(resident.integrals.streams[s], fresh.integrals.streams[s]) << unit << " stream " << s;
            EXPECT_EQ(resident.likelihood.likelihood, fresh.likelihood.likelihood) << unit << " candidate " << k;
        }
    }
}

}  // namespace

TEST(FitResidentDevice, BitIdenticalToAFreshEvaluationOnTheTinyUnit) {
    REQUIRE_GPU();
    expect_resident_matches_evaluate("tiny");
}

TEST(FitResidentDevice, BitIdenticalToAFreshEvaluationOnThe3StreamSmallUnit) {
    REQUIRE_GPU();
    expect_resident_matches_evaluate("3s-small");
}

// The compressed quadrature keeps its rules and tables between candidates; only the streams, q, r0 and the
// skip thresholds change, and the result is the same as a fresh evaluation's.
TEST(FitResidentDevice, CompressedBitIdenticalToAFreshEvaluationOnThe3StreamSmallUnit) {
    REQUIRE_GPU();
    expect_resident_matches_evaluate("3s-small", "compressed-f64");
}

// The fit's default: the stars added on the device (cuda::run_likelihood_sum). Its likelihood is compared with the
// mean of the very per-star values the kernel downloads (run_likelihood_kernel), added on the host in long double
// with compensation: within two roundings of that mean (the compensated sum's rounding and the division's). The
// integrals are the same bits as without the device sum, a repeat gives the same bits, and the penalty stars are
// counted alike. 20,000 stars: 313 blocks of 64, more than the 256 threads of the total's block.
static void expect_device_sum_within_two_roundings(const std::string& variant) {
    const auto data = fit_data("3s-small", 20000);
    const auto batch = candidates(data);
    const auto base = mwsep::geometry::make_setup(model_of(data, batch[0]));
    mwsep::fit::ResidentDevice host(base, data.stars, variant, 0, 1);
    mwsep::fit::ResidentDevice device(base, data.stars, variant, 0, 1, {.star_sum = true, .thresholds = false});
    for (std::size_t k = 0; k < batch.size(); ++k) {
        const auto m = model_of(data, batch[k]);
        const auto on_host = host.evaluate(m);
        const auto on_device = device.evaluate(m);
        EXPECT_EQ(on_device.integrals.background, on_host.integrals.background) << variant << " candidate " << k;
        for (std::size_t s = 0; s < on_host.integrals.streams.size(); ++s)
            EXPECT_EQ(on_device.integrals.streams[s], on_host.integrals.streams[s]) << variant << " stream " << s;
        const auto star = mwsep::cuda::run_likelihood_kernel(mwsep::geometry::make_setup(m), data.stars, on_host.integrals,
                                                             true, true, nullptr);
        ASSERT_EQ(star.log_probability.size(), data.stars.size());
        long double sum = 0, compensation = 0;
        for (const double v : star.log_probability) {
            const long double t = sum + v;
            compensation += std::fabs(sum) >= std::fabs(static_cast<long double>(v)) ? (sum - t) + v : (v - t) + sum;
            sum = t;
        }
        const long double mean = (sum + compensation) / static_cast<long double>(star.log_probability.size());
        const double eps = std::numeric_limits<double>::epsilon();
        const double l = on_device.likelihood.likelihood;
        EXPECT_LE(std::fabs(static_cast<long double>(l) - mean), 2 * eps * std::fabs(mean))
            << variant << " candidate " << k << ": device " << l << ", long double " << static_cast<double>(mean);
        EXPECT_EQ(on_device.likelihood.zero_probability_stars, on_host.likelihood.zero_probability_stars) << k;
        EXPECT_EQ(device.evaluate(m).likelihood.likelihood, l) << variant << " candidate " << k << " again";
    }
}

TEST(FitResidentDevice, DeviceStarSumWithinTwoRoundingsOfTheExactMeanOfTheStarsValues) {
    REQUIRE_GPU();
    expect_device_sum_within_two_roundings("modern-f64");
    expect_device_sum_within_two_roundings("compressed-f64");
}

// The device star sum reads each star's convolution points (distance and weight) from a table made once
// (cuda::tabulate_convolution) instead of computing them per candidate: the densities are the same bits as those
// computed on the fly, for 0 to 3 streams (the 3-stream unit's model cut to 0, 1 and 2 streams too). A table made
// for another quadrature is refused.
TEST(FitResidentDevice, TabulatedConvolutionPointsGiveTheSameDensitiesBitForBit) {
    REQUIRE_GPU();
    const auto data = fit_data("3s-small", 5000);
    harness::use_device(0);
    for (const auto& x : candidates(data)) {
        const auto full = model_of(data, x);
        for (std::size_t streams = 0; streams <= full.streams.size(); ++streams) {
            auto m = full;
            m.streams.resize(streams);
            const auto setup = mwsep::geometry::make_setup(m);
            const int S = static_cast<int>(streams);
            mwsep::cuda::ResidentStars computed(data.stars, true, true, S), tabulated(data.stars, true, true, S);
            mwsep::cuda::Stream queue;
            mwsep::cuda::tabulate_convolution(setup, tabulated, queue.get());
            ASSERT_NE(tabulated.conv_r, nullptr);
            ASSERT_EQ(tabulated.conv_offsets.size(), static_cast<std::size_t>(m.convolve));
            mwsep::cuda::queue_star_densities(setup, computed, queue.get());
            mwsep::cuda::queue_star_densities(setup, tabulated, queue.get());
            const std::size_t n = data.stars.size() * (1 + streams);
            std::vector<double> a(n), b(n);
            mwsep::cuda::check(cudaMemcpyAsync(a.data(), computed.densities, n * sizeof(double), cudaMemcpyDeviceToHost,
                                               queue.get()), "download");
            mwsep::cuda::check(cudaMemcpyAsync(b.data(), tabulated.densities, n * sizeof(double), cudaMemcpyDeviceToHost,
                                               queue.get()), "download");
            mwsep::cuda::check(cudaStreamSynchronize(queue.get()), "densities");
            std::size_t differing = 0, positive = 0;
            for (std::size_t i = 0; i < n; ++i) {
                differing += std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i]);
                positive += a[i] > 0;
            }
            EXPECT_EQ(differing, 0u) << streams << " streams";
            EXPECT_GT(positive, n / 2) << streams << " streams: the densities should mostly be positive";
            if (streams == full.streams.size()) {
                auto other = m;
                other.convolve = m.convolve / 2;
                const auto other_setup = mwsep::geometry::make_setup(other);
                EXPECT_THROW(mwsep::cuda::queue_star_densities(other_setup, tabulated, queue.get()), mwsep::cuda::CudaError);
            }
        }
    }
}

// The compressed integral's skip thresholds computed on the device (the fit's default): the same definition as the
// host's (stream_skipping.cpp) with the device's exponential and its own order of the best cell's sum, so within
// 1e-13 relative of the host's values. A threshold also sets the error controller's floor, so a rule can be
// accepted one level apart: the integrals and the likelihood stay within 1e-13 relative (the controller's tolerance
// is 1e-14 per cell). With the device thresholds prefetching does nothing and a repeat gives the same bits.
TEST(FitResidentDevice, CompressedDeviceThresholdsWithin1e13OfTheHostsAndTheirIntegralsToo) {
    REQUIRE_GPU();
    const auto data = fit_data("3s-small", 2000);
    const auto batch = candidates(data);
    const auto base = mwsep::geometry::make_setup(model_of(data, batch[0]));
    mwsep::fit::ResidentDevice host(base, data.stars, "compressed-f64", 0, 1);
    mwsep::fit::ResidentDevice device(base, data.stars, "compressed-f64", 0, 1, {.star_sum = false, .thresholds = true});
    ASSERT_TRUE(device.device_work().thresholds) << "the compressed family should compute its thresholds on the device";
    int differing = 0;
    for (std::size_t k = 0; k < batch.size(); ++k) {
        const auto m = model_of(data, batch[k]);
        device.prefetch(m);
        const auto on_host = host.evaluate(m);
        const auto on_device = device.evaluate(m);
        const auto th = host.thresholds_in_use(), td = device.thresholds_in_use();
        ASSERT_EQ(th.size(), td.size());
        for (std::size_t i = 0; i < th.size(); ++i) {
            ASSERT_EQ(th[i].size(), m.streams.size());
            ASSERT_EQ(td[i].size(), th[i].size());
            for (std::size_t s = 0; s < th[i].size(); ++s) {
                EXPECT_GT(th[i][s], 0.0) << "candidate " << k << " area " << i << " stream " << s;
                EXPECT_NEAR(td[i][s], th[i][s], 1e-13 * th[i][s]) << "candidate " << k << " area " << i << " stream " << s;
                differing += td[i][s] != th[i][s];
            }
        }
        EXPECT_NEAR(on_device.integrals.background, on_host.integrals.background, 1e-13 * on_host.integrals.background);
        for (std::size_t s = 0; s < on_host.integrals.streams.size(); ++s)
            EXPECT_NEAR(on_device.integrals.streams[s], on_host.integrals.streams[s], 1e-13 * on_host.integrals.streams[s])
                << "candidate " << k << " stream " << s;
        const double l = on_device.likelihood.likelihood, lh = on_host.likelihood.likelihood;
        EXPECT_NEAR(l, lh, 1e-13 * std::fabs(lh)) << "candidate " << k;
        EXPECT_EQ(device.evaluate(m).likelihood.likelihood, l) << "candidate " << k << " again";
    }
    std::printf("device thresholds: %d of %zu differ from the host's in some bit\n", differing,
                batch.size() * base.areas.size() * base.streams.size());
}

TEST(FitGpuEvaluator, SameValuesOnOneDeviceEveryDeviceOrOneAtATimeAndCloseToTheCpu) {
    REQUIRE_GPU();
    const auto data = fit_data("tiny", 2000);
    const auto batch = candidates(data);
    auto one = mwsep::fit::make_gpu_evaluator(data, "modern-f64", {0});
    auto every = mwsep::fit::make_gpu_evaluator(data, "modern-f64", {});
    const auto a = one->evaluate(batch);
    const auto b = every->evaluate(batch);
    ASSERT_EQ(a.size(), batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        ASSERT_TRUE(std::isfinite(a[i])) << i;
        EXPECT_EQ(a[i], b[i]) << "candidate " << i << " on " << every->description();
        EXPECT_EQ(a[i], every->evaluate({batch[i]})[0]) << "candidate " << i << " alone";
        const double cpu = mwsep::fit::cpu_likelihood(data, batch[i], 2);
        EXPECT_NEAR(a[i], cpu, 1e-12 * std::fabs(cpu)) << "candidate " << i << " against the CPU";
    }
}

// A fit in single precision (mwsep fit --variant modern-f32, experiment fit_recovery_f32): the resident
// single-precision kernel gives what a fresh evaluation gives, and its likelihoods lie within the single-precision
// tolerance of the GPU correctness tests (1e-5 relative) of the CPU's double-precision ones.
TEST(FitResidentDevice, SinglePrecisionBitIdenticalToAFreshEvaluationOnThe2StreamSmallUnit) {
    REQUIRE_GPU();
    expect_resident_matches_evaluate("2s-small", "modern-f32");
}

TEST(FitGpuEvaluator, SinglePrecisionCloseToTheCpuDoublePrecision) {
    REQUIRE_GPU();
    const auto data = fit_data("tiny", 2000);
    const auto batch = candidates(data);
    auto single = mwsep::fit::make_gpu_evaluator(data, "modern-f32", {0});
    const auto a = single->evaluate(batch);
    ASSERT_EQ(a.size(), batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
        ASSERT_TRUE(std::isfinite(a[i])) << i;
        const double cpu = mwsep::fit::cpu_likelihood(data, batch[i], 2);
        EXPECT_NEAR(a[i], cpu, 1e-5 * std::fabs(cpu)) << "candidate " << i << " against the CPU";
    }
}

TEST(FitGpuEvaluator, LocalRanksTakeTheDevicesRoundRobin) {
    REQUIRE_GPU();
    const auto ranked = mwsep::cuda::ranked_devices(true);
    ASSERT_FALSE(ranked.empty());
    for (int r = 0; r < 2 * static_cast<int>(ranked.size()); ++r)
        EXPECT_EQ(mwsep::fit::device_for_local_rank(r, "modern-f64"), ranked[r % ranked.size()]) << r;
}

// ---- The integral cache (fit/integral_cache.hpp) on the GPU: a component taken from the cache, or integrated in a
// launch of the missing streams alone, is the same bits as in a launch of the whole candidate, for every exact
// variant a fit can run.
namespace {

/// @p unit with q, r0 and every stream parameter optimised (the angles' bounds widened), and @p stars stars
/// drawn from it.
mwsep::fit::FitData every_parameter(const std::string& unit, std::size_t stars) {
    mwsep::fit::FitData data;
    data.work_unit = mwsep::model::read_astronomy_parameters(testsupport::workunit(unit).string());
    data.work_unit.optimize_background = {0, 1, 1, 0};
    for (auto& s : data.work_unit.streams) {
        s.optimize_weight = true;
        for (std::size_t j = 0; j < s.optimize.size(); ++j) s.optimize[j] = true;
        for (const std::size_t j : {2u, 3u}) s.min[j] = -2 * std::numbers::pi, s.max[j] = 2 * std::numbers::pi;
    }
    data.stars = fittest::drawn_catalogue(data.work_unit, stars);
    return data;
}

/// The unit's vector, each parameter alone moved up and down, and pairs within one component and across two
/// (the kinds of points the Hessian's stencil has), with steps of 1e-3 of each range.
mwsep::fit::Batch stencil_points(const mwsep::fit::FitData& data) {
    const auto space = mwsep::fit::fit_space(data.work_unit, true);
    const auto step = [&](std::vector<double> x, std::size_t i, double sign) {
        x[i] += sign * 1e-3 * (space.upper[i] - space.lower[i]);
        return x;
    };
    const auto& x = space.start;
    mwsep::fit::Batch batch{x};
    for (std::size_t i = 0; i < x.size(); ++i) batch.push_back(step(x, i, 1)), batch.push_back(step(x, i, -1));
    // (q, r0), (stream 1's mu, r), (stream 1's mu, last stream's sigma), (q, stream 2's theta), (a weight, stream 1's r)
    for (const auto& [i, j] : std::vector<std::pair<std::size_t, std::size_t>>{
             {0, 1}, {3, 4}, {3, x.size() - 1}, {0, std::min<std::size_t>(11, x.size() - 1)}, {2, 4}})
        for (const double s : {1.0, -1.0}) batch.push_back(step(step(x, i, s), j, -s));
    return batch;
}

void expect_cache_changes_no_bit(const mwsep::fit::FitData& data, const std::string& variant, const std::string& unit) {
    auto plain_data = data;
    plain_data.integral_cache = false;
    auto plain = mwsep::fit::make_gpu_evaluator(plain_data, variant, {0});
    auto cached = mwsep::fit::make_gpu_evaluator(data, variant, {0});
    const auto batch = stencil_points(data);
    const auto a = plain->evaluate(batch);
    const auto b = cached->evaluate(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
        ASSERT_TRUE(std::isfinite(a[i])) << unit << " " << variant << " point " << i;
        EXPECT_EQ(a[i], b[i]) << unit << " " << variant << " point " << i;
    }
    const auto w = cached->integral_work();
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(w->full, 1) << unit << " " << variant << ": only the first point is integrated whole";
    EXPECT_GT(w->none, 0) << unit << " " << variant;
}

}  // namespace

TEST(FitIntegralCache, EveryExactVariantGivesTheSameBitsWithTheCacheOnThe3StreamSmallUnit) {
    REQUIRE_GPU();
    const auto data = every_parameter("3s-small", 2000);
    int tested = 0;
    for (const auto* v : mwsep::cuda::select_variants("modern-*")) {
        expect_cache_changes_no_bit(data, v->name, "3s-small");
        ++tested;
    }
    EXPECT_GE(tested, 17) << "modern-f64, modern-f32 and the lean variants";
}

TEST(FitIntegralCache, TheFitVariantsGiveTheSameBitsWithTheCacheOnTheLargeUnits) {
    REQUIRE_GPU();
    for (const std::string unit : {"3s-large", "stripe11-large"}) {
        const auto data = every_parameter(unit, 1000);
        for (const std::string variant : {"modern-f64", "modern-rw-exp8-staged-f64", "modern-rw-exp8-sub4log-warp-staged-f64"})
            expect_cache_changes_no_bit(data, variant, unit);
    }
}

TEST(FitIntegralCache, TheGpuHessianIsTheSameBitsWithAndWithoutTheCache) {
    REQUIRE_GPU();
    auto data = every_parameter("3s-small", 2000);
    const auto space = mwsep::fit::fit_space(data.work_unit, true);
    std::vector<double> width(space.size());
    for (std::size_t i = 0; i < width.size(); ++i) width[i] = space.upper[i] - space.lower[i];
    for (const std::string variant : {"modern-f64", "modern-rw-exp8-sub4log-warp-staged-f64"}) {
        data.integral_cache = false;
        auto plain = mwsep::fit::make_gpu_evaluator(data, variant, {0});
        const auto without = mwsep::fit::uncertainty_at(*plain, space.start, width, 1e-3, data.stars.size());
        data.integral_cache = true;
        auto cached = mwsep::fit::make_gpu_evaluator(data, variant, {0});
        const auto with = mwsep::fit::uncertainty_at(*cached, space.start, width, 1e-3, data.stars.size());
        ASSERT_EQ(with.steps, without.steps) << variant;
        for (std::size_t k = 0; k < with.hessian.size(); ++k)
            EXPECT_EQ(std::bit_cast<std::uint64_t>(with.hessian[k]), std::bit_cast<std::uint64_t>(without.hessian[k]))
                << variant << " element " << k << ": " << with.hessian[k] << " and " << without.hessian[k];
        const auto w = cached->integral_work();
        ASSERT_TRUE(w.has_value());
        EXPECT_EQ(w->full, 1) << variant;
        EXPECT_EQ(w->full + w->partial + w->none, static_cast<long long>(with.evaluations)) << variant;
    }
}

// The convolution table changes no bit where the integral cache is at work too: the candidates a polish makes (one
// parameter moved at a time: a weight alone takes every integral from the cache, a stream's parameter launches that
// stream alone, q or r0 the background alone), evaluated by a resident device whose star sum reads the table and by
// one that computes the points, each with its own cache, have the same likelihood, bit for bit.
TEST(FitIntegralCache, TheConvolutionTableChangesNoBitOfAPolishsCandidates) {
    REQUIRE_GPU();
    const auto data = every_parameter("3s-small", 20000);
    const auto batch = stencil_points(data);
    const auto base = mwsep::geometry::make_setup(model_of(data, batch[0]));
    mwsep::fit::ResidentDevice tabulated(base, data.stars, "modern-f64", 0, 1, {.star_sum = true, .thresholds = false});
    mwsep::fit::ResidentDevice computing(base, data.stars, "modern-f64", 0, 1,
                                         {.star_sum = true, .thresholds = false, .convolution_table = false});
    mwsep::fit::IntegralCache with_table, without_table;
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const auto m = model_of(data, batch[pass == 0 ? i : batch.size() - 1 - i]);
            const auto a = tabulated.evaluate(m, &with_table);
            const auto b = computing.evaluate(m, &without_table);
            EXPECT_EQ(std::bit_cast<std::uint64_t>(a.likelihood.likelihood), std::bit_cast<std::uint64_t>(b.likelihood.likelihood))
                << "pass " << pass << " point " << i << ": " << a.likelihood.likelihood << " and " << b.likelihood.likelihood;
            EXPECT_EQ(a.integrals.background, b.integrals.background) << "pass " << pass << " point " << i;
        }
    }
    EXPECT_GT(with_table.work().partial, 0);
    EXPECT_GT(with_table.work().none, 0);
}

// A whole exact fit as `mwsep fit` runs it by default (CMA-ES, then both polishes side by side with the integral
// cache, the stars added on the device) ends on the same vector, likelihood and number of evaluations when run again
// with a new evaluator, and without the convolution table: its outcome depends on neither timing nor the table.
TEST(FitGpuEvaluator, AnExactFitIsTheSameAgainAndWithoutTheConvolutionTable) {
    REQUIRE_GPU();
    auto data = every_parameter("3s-small", 3000);
    auto space = mwsep::fit::narrowed(mwsep::fit::fit_space(data.work_unit, true), 0.05);
    // The start moved off the unit's own values (the box's middle where no range limit clips it), alternately
    // up and down, to 20 % and 80 % of the box: the global search must find a better point than the start (its
    // population's first member), or its best is the start and the polish from the start does not run. Moved
    // by 1 % of the box (as at first), no candidate of 6 generations of 8 beat the start on an H200.
    for (std::size_t i = 0; i < space.start.size(); ++i)
        space.start[i] = space.lower[i] + (i % 2 == 0 ? 0.8 : 0.2) * (space.upper[i] - space.lower[i]);
    mwsep::fit::FitOptions o;
    o.algorithm = "cmaes";
    o.population = 8;
    o.generations = 10;
    o.polish_evaluations = 150;
    o.uncertainties = false;
    const auto fit = [&](bool table) {
        data.convolution_table = table;
        auto evaluator = mwsep::fit::make_gpu_evaluator(data, "modern-f64", {0});
        return mwsep::fit::run_fit(space, *evaluator, o, data.stars.size());
    };
    const auto first = fit(true), again = fit(true), computed = fit(false);
    ASSERT_EQ(first.polishes.size(), 2u) << "both polishes should have run: the global search ended on the start, "
                                             "with L " << first.global_likelihood;
    for (const auto* other : {&again, &computed}) {
        const char* which = other == &again ? "again" : "without the table";
        EXPECT_EQ(other->best, first.best) << which;
        EXPECT_EQ(other->likelihood, first.likelihood) << which;
        EXPECT_EQ(other->evaluations, first.evaluations) << which;
        ASSERT_EQ(other->polishes.size(), first.polishes.size()) << which;
        for (std::size_t k = 0; k < first.polishes.size(); ++k)
            EXPECT_EQ(other->polishes[k].evaluations, first.polishes[k].evaluations) << which << " polish " << k;
    }
}

// The device memory a fit keeps (ResidentDevice::plan, checked before the fit allocates) is exactly what it
// allocates: the integral and the stars at construction, then the integral cache's partial integrals (of 1 and
// of 2 of the 3-stream unit's streams) on their first use, and nothing per candidate after.
TEST(FitGpuMemory, AResidentDeviceAllocatesExactlyItsPlanPartialIntegralsIncluded) {
    REQUIRE_GPU();
    const auto data = fit_data("3s-small", 2000);
    const auto x = candidates(data)[0];
    const auto base = mwsep::geometry::make_setup(model_of(data, x));
    ASSERT_EQ(base.streams.size(), 3u);
    const auto with = mwsep::fit::ResidentDevice::plan(base, data.stars.size(), "modern-f64", true, false);
    const auto without = mwsep::fit::ResidentDevice::plan(base, data.stars.size(), "modern-f64", false, false);
    harness::use_device(0);
    {
        // The device star sum's convolution table, made at construction, is in its plan too.
        const auto summed = mwsep::fit::ResidentDevice::plan(base, data.stars.size(), "modern-f64", false, true);
        EXPECT_GT(summed.requested_bytes(), without.requested_bytes());
        const std::size_t start = harness::device_bytes_requested();
        mwsep::fit::ResidentDevice device(base, data.stars, "modern-f64", 0, 1, {.star_sum = true, .thresholds = false});
        EXPECT_EQ(harness::device_bytes_requested() - start, summed.requested_bytes());
        const std::size_t untabled = harness::device_bytes_requested();
        mwsep::fit::ResidentDevice computing(base, data.stars, "modern-f64", 0, 1,
                                             {.star_sum = true, .thresholds = false, .convolution_table = false});
        EXPECT_EQ(harness::device_bytes_requested() - untabled, without.requested_bytes());
    }
    const std::size_t before = harness::device_bytes_requested();
    mwsep::fit::ResidentDevice device(base, data.stars, "modern-f64", 0);
    EXPECT_EQ(harness::device_bytes_requested() - before, without.requested_bytes());
    mwsep::fit::IntegralCache cache;
    const auto a = model_of(data, x);
    auto b = a, c = a;
    b.streams[2].mu += 0.5;  // one stream new: the 1-stream partial integral
    c.streams[1].mu += 0.5, c.streams[2].mu += 1.0;  // two streams new: the 2-stream one
    for (const auto& m : {a, b, c, a, b, c}) (void)device.evaluate(m, &cache);
    EXPECT_EQ(harness::device_bytes_requested() - before, with.requested_bytes());
    const auto work = cache.work();
    EXPECT_EQ(work.partial, 2) << "the cache should have launched two partial integrals";
}

#include "mwsep/fit/optimizer.hpp"

// The project's own searches on the GPU evaluator (MilkyWay@Home's methods and the batched CMA-ES): a gradient's
// points, a genetic round and a CMA-ES generation are batches spread over the devices, and the values do not depend
// on the split, so one device and every device give the same search, bit for bit (the genetic search with simulated
// late and lost results too); with the exact and the compressed integral.
TEST(FitGpuEvaluator, TheOwnSearchesGiveTheSameFitOnOneDeviceAndOnEveryDevice) {
    REQUIRE_GPU();
    for (const std::string variant : {"modern-f64", "compressed-f64"}) {
        auto data = fit_data("tiny", 2000);
        data.compressed = variant == "compressed-f64";
        const auto space = mwsep::fit::narrowed(mwsep::fit::fit_space(data.work_unit, true), 0.05);
        for (const std::string algorithm : {"cgd", "line", "async-ga", "cmaes-batch"}) {
            mwsep::fit::FitOptions o;
            o.algorithm = algorithm;
            o.population = 8;
            o.generations = 4;
            o.polish_evaluations = 0;
            o.uncertainties = false;
            if (algorithm == "async-ga") o.late_fraction = 0.3, o.lost_fraction = 0.1;
            auto one = mwsep::fit::make_gpu_evaluator(data, variant, {0});
            auto every = mwsep::fit::make_gpu_evaluator(data, variant, {});
            const auto a = mwsep::fit::run_fit(space, *one, o, data.stars.size());
            const auto b = mwsep::fit::run_fit(space, *every, o, data.stars.size());
            EXPECT_EQ(a.best, b.best) << algorithm << " " << variant << " on " << every->description();
            EXPECT_EQ(a.likelihood, b.likelihood) << algorithm << " " << variant;
            EXPECT_EQ(a.evaluations, b.evaluations) << algorithm << " " << variant;
            // The gradient methods climb from the start; CMA-ES keeps the start when four generations find nothing
            // better (the tiny catalogue is drawn with the start's parameters).
            if (algorithm == "cmaes-batch") EXPECT_GE(a.likelihood, a.history.front().best) << variant;
            else EXPECT_GT(a.likelihood, a.history.front().best) << algorithm << " " << variant;
        }
    }
}
