// mwsep fit: the Hessian against known quadratics, the optimizer's determinism and resuming on a
// quadratic objective, the CPU evaluator's independence of the batch split, and a recovery on the tiny
// work unit from a catalogue drawn with known parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <chrono>
#include <numbers>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "harness/threads.hpp"
#include "mwsep/fit/candidate_setup.hpp"
#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/hessian.hpp"
#include "mwsep/fit/optimizer.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/input_error.hpp"
#include "fit_catalogue.hpp"
#include "fit_landscapes.hpp"
#include "test_support.hpp"

namespace {

using mwsep::fit::Batch;

using fit_landscapes::Quadratic;
using fit_landscapes::box3;
using fit_landscapes::centre;
using fit_landscapes::matrix;

TEST(FitHessian, CentralDifferencesOfAQuadraticAreItsMatrix) {
    Quadratic q(centre, matrix);
    const std::vector<double> x = {0.1, 0.2, 0.3}, h = {1e-2, 2e-2, 5e-3};
    const auto f = q.evaluate(mwsep::fit::hessian_stencil(x, h));
    ASSERT_EQ(f.size(), 1u + 2 * 3 + 4 * 3);
    const auto H = mwsep::fit::hessian_from_stencil(f, h);
    for (std::size_t k = 0; k < 9; ++k) EXPECT_NEAR(H[k], -matrix[k], 1e-9) << k;
}

TEST(FitHessian, InverseTimesMatrixIsIdentityAndIndefiniteIsRefused) {
    const auto inv = mwsep::fit::inverse_spd(matrix, 3);
    ASSERT_EQ(inv.size(), 9u);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double v = 0;
            for (int k = 0; k < 3; ++k) v += inv[i * 3 + k] * matrix[k * 3 + j];
            EXPECT_NEAR(v, i == j ? 1.0 : 0.0, 1e-14);
        }
    EXPECT_TRUE(mwsep::fit::inverse_spd({1.0, 2.0, 2.0, 1.0}, 2).empty());  // eigenvalues 3 and -1
}

TEST(FitHessian, EigenDecompositionOfKnownSymmetricMatrices) {
    // [[2, 1], [1, 2]]: eigenvalues 1 and 3, eigenvectors (1, -1) / sqrt 2 and (1, 1) / sqrt 2, by hand.
    const auto two = mwsep::fit::symmetric_eigen({2, 1, 1, 2}, 2);
    ASSERT_EQ(two.values.size(), 2u);
    EXPECT_NEAR(two.values[0], 1, 1e-14);
    EXPECT_NEAR(two.values[1], 3, 1e-14);
    EXPECT_NEAR(std::abs(two.vectors[0][0] * two.vectors[0][1] + 0.5), 0, 1e-14);  // components of opposite sign
    EXPECT_NEAR(two.vectors[1][0] * two.vectors[1][1], 0.5, 1e-14);
    // The 3 x 3 test matrix and an indefinite one: A v = lambda v for every pair, the trace is the sum of
    // the eigenvalues and the determinant their product, and the eigenvectors are orthonormal.
    const std::vector<double> indefinite = {1.0, 2.0, 0.0, 2.0, -1.0, 0.5, 0.0, 0.5, 0.25};
    for (const auto& a : {matrix, indefinite}) {
        const auto e = mwsep::fit::symmetric_eigen(a, 3);
        const double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                           a[2] * (a[3] * a[7] - a[4] * a[6]);
        EXPECT_NEAR(e.values[0] + e.values[1] + e.values[2], a[0] + a[4] + a[8], 1e-13);
        EXPECT_NEAR(e.values[0] * e.values[1] * e.values[2], det, 1e-12);
        EXPECT_LE(e.values[0], e.values[1]);
        EXPECT_LE(e.values[1], e.values[2]);
        for (int k = 0; k < 3; ++k) {
            for (int i = 0; i < 3; ++i) {
                double av = 0;
                for (int j = 0; j < 3; ++j) av += a[i * 3 + j] * e.vectors[k][j];
                EXPECT_NEAR(av, e.values[k] * e.vectors[k][i], 1e-13) << k << ' ' << i;
            }
            for (int l = 0; l < 3; ++l) {
                double dot = 0;
                for (int i = 0; i < 3; ++i) dot += e.vectors[k][i] * e.vectors[l][i];
                EXPECT_NEAR(dot, k == l ? 1.0 : 0.0, 1e-14);
            }
        }
    }
    EXPECT_LT(mwsep::fit::symmetric_eigen(indefinite, 3).values[0], 0);
}

TEST(FitHessian, UncertaintiesAreTheInverseFisherInformation) {
    // With N stars, ln likelihood = N ln(10) L, so the covariance is (N ln(10) A)^-1.
    const std::size_t stars = 1000;
    Quadratic q(centre, matrix);
    const auto u = mwsep::fit::uncertainty_at(q, centre, {1, 1, 1}, 1e-3, stars);
    ASSERT_TRUE(u.positive_definite);
    const auto inv = mwsep::fit::inverse_spd(matrix, 3);
    for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(u.sigma[i], std::sqrt(inv[i * 3 + i] / (stars * std::numbers::ln10)), 1e-9 * u.sigma[i] + 1e-12);
}

TEST(FitOptimizer, EveryAlgorithmFindsTheMaximumOfAQuadratic) {
    for (const std::string algorithm : {"pso", "de", "cmaes"}) {
        Quadratic q(centre, matrix);
        mwsep::fit::FitOptions o;
        o.algorithm = algorithm;
        o.population = 16;
        o.generations = 30;
        o.polish_evaluations = 200;
        const auto r = mwsep::fit::run_fit(box3(), q, o, 100);
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.best[i], centre[i], 1e-5) << algorithm << " parameter " << i;
        EXPECT_NEAR(r.likelihood, -1.5, 1e-9) << algorithm;
        EXPECT_EQ(r.history.size(), 31u) << algorithm;
        EXPECT_EQ(r.evaluations, r.global_evaluations + r.polish_evaluations + r.hessian_evaluations);
        if (algorithm == "pso") {
            // The swarm is evaluated a generation at a time: batches of the population's size (the
            // second batch is the start vector put into the initial swarm).
            EXPECT_EQ(q.batches[0], 16u);
            EXPECT_EQ(q.batches[1], 1u);
            EXPECT_EQ(q.batches[2], 16u);
        }
    }
}

/// Two peaks in [-2, 2]^2: a broad one of height 1.5 at (-1, -1) that most of the box leans towards, and a
/// narrow one of height 2 at (1.5, 1.5), on top of the broad one's tail: the global maximum (L about 2.75).
class TwoPeaks : public mwsep::fit::BatchEvaluator {
public:
    std::vector<double> evaluate(const Batch& batch) override {
        std::vector<double> out;
        for (const auto& x : batch) {
            const double broad = (x[0] + 1) * (x[0] + 1) + (x[1] + 1) * (x[1] + 1);
            const double narrow = (x[0] - 1.5) * (x[0] - 1.5) + (x[1] - 1.5) * (x[1] - 1.5);
            out.push_back(1.5 * std::exp(-broad / 18.0) + 2.0 * std::exp(-narrow / 0.02));
        }
        return out;
    }
    std::string description() const override { return "two peaks"; }
};

/// TwoPeaks' box, [-2, 2]^2, with the start (1.35, 1.6) on the narrow peak's flank.
mwsep::fit::FitSpace two_peak_space() {
    mwsep::fit::FitSpace s;
    s.names = {"x", "y"};
    s.lower = {-2, -2};
    s.upper = {2, 2};
    s.start = {1.35, 1.6};
    return s;
}

/// A fit of TwoPeaks whose global search is CMA-ES's initial population alone (it settles on the broad peak),
/// with polishes of up to 400 evaluations and no uncertainties.
mwsep::fit::FitOptions two_peak_options() {
    mwsep::fit::FitOptions o;
    o.algorithm = "cmaes";
    o.population = 16;
    o.generations = 0;
    o.polish_evaluations = 400;
    o.uncertainties = false;
    return o;
}

TEST(FitOptimizer, ThePolishFromTheStartFindsThePeakTheGlobalSearchMissed) {
    // The start (1.35, 1.6) lies on the narrow peak's flank with L about 1.15; random candidates near the
    // broad peak score up to 1.5, so the initial population's best (no generations follow) is there, and
    // a polish from it climbs only the broad peak. The polish from the start reaches the narrow one.
    const mwsep::fit::FitSpace s = two_peak_space();
    mwsep::fit::FitOptions o = two_peak_options();
    o.polish_from_start = false;
    TwoPeaks peaks;
    const auto global_only = mwsep::fit::run_fit(s, peaks, o, 100);
    ASSERT_EQ(global_only.polishes.size(), 1u);
    EXPECT_EQ(global_only.polishes[0].from, "global best");
    EXPECT_LT(global_only.likelihood, 1.6);  // the broad peak's 1.5 (its own tail adds a little)
    EXPECT_GT(global_only.global_likelihood, peaks.evaluate({s.start})[0]);
    o.polish_from_start = true;
    const auto both = mwsep::fit::run_fit(s, peaks, o, 100);
    ASSERT_EQ(both.polishes.size(), 2u);
    EXPECT_EQ(both.polishes[1].from, "start");
    EXPECT_EQ(both.polishes[0].likelihood, global_only.polishes[0].likelihood);
    EXPECT_TRUE(std::isnan(both.polishes[1].begin));
    const double top = 2.0 + 1.5 * std::exp(-12.5 / 18.0);  // the narrow peak's height, plus the broad tail there
    EXPECT_NEAR(both.likelihood, top, 1e-3);
    EXPECT_EQ(both.likelihood, both.polishes[1].likelihood);
    EXPECT_EQ(both.polishes[1].stopped_by, "tolerance");  // 400 evaluations are plenty for two parameters
    EXPECT_NEAR(both.best[0], 1.5, 0.01);
    EXPECT_NEAR(both.best[1], 1.5, 0.01);
    EXPECT_EQ(both.evaluations, both.global_evaluations + both.polishes[0].evaluations + both.polishes[1].evaluations);
}

/// TwoPeaks that records, for each batch, its size and whether the thread that called run_fit evaluated it,
/// takes a millisecond a batch (as an evaluation on a device takes about that, so that a polish does not end
/// before the other one's thread has started), and fails (as a device would) from its @ref fail_from-th
/// batch on.
class RecordingPeaks : public TwoPeaks {
public:
    std::thread::id caller = std::this_thread::get_id();
    std::vector<std::size_t> sizes;
    bool foreign_thread = false;
    std::size_t fail_from = std::numeric_limits<std::size_t>::max();
    std::vector<double> evaluate(const Batch& batch) override {
        if (std::this_thread::get_id() != caller) foreign_thread = true;
        sizes.push_back(batch.size());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (sizes.size() >= fail_from) throw std::runtime_error("the device failed");
        return TwoPeaks::evaluate(batch);
    }
};

/// The fit of TwoPeaks with both polishes (a global search that settles on the broad peak).
mwsep::fit::FitResult two_peak_fit(RecordingPeaks& peaks, bool together) {
    mwsep::fit::FitOptions o = two_peak_options();
    o.polishes_together = together;
    return mwsep::fit::run_fit(two_peak_space(), peaks, o, 100);
}

TEST(FitOptimizer, PolishesSideBySideReachWhatTheyReachOneAfterTheOther) {
    RecordingPeaks apart_peaks, together_peaks;
    const auto apart = two_peak_fit(apart_peaks, false);
    const auto together = two_peak_fit(together_peaks, true);
    ASSERT_EQ(apart.polishes.size(), 2u);
    ASSERT_EQ(together.polishes.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(together.polishes[i].from, apart.polishes[i].from);
        EXPECT_EQ(together.polishes[i].likelihood, apart.polishes[i].likelihood) << i;  // bit for bit
        EXPECT_EQ(together.polishes[i].evaluations, apart.polishes[i].evaluations) << i;
        EXPECT_EQ(together.polishes[i].stopped_by, apart.polishes[i].stopped_by) << i;
    }
    EXPECT_EQ(together.best, apart.best);
    EXPECT_EQ(together.likelihood, apart.likelihood);
    EXPECT_EQ(together.evaluations, apart.evaluations);
    EXPECT_EQ(together.polish_evaluations, apart.polish_evaluations);
    // One after the other: one candidate a batch in the polishes. Side by side: pairs while both run, and
    // fewer batches in all; every batch evaluated by the thread that called run_fit.
    EXPECT_EQ(std::count(apart_peaks.sizes.begin(), apart_peaks.sizes.end(), 1u), apart_peaks.sizes.size());
    EXPECT_GT(std::count(together_peaks.sizes.begin(), together_peaks.sizes.end(), 2u), 0);
    EXPECT_LT(together_peaks.sizes.size(), apart_peaks.sizes.size());
    EXPECT_FALSE(together_peaks.foreign_thread);
    EXPECT_FALSE(apart_peaks.foreign_thread);
}

TEST(FitOptimizer, AFailureDuringSideBySidePolishesStopsTheFitWithIt) {
    RecordingPeaks peaks;
    peaks.fail_from = 25;  // the global search takes 17 batches of one; the polishes fail a few batches in
    EXPECT_THROW(
        {
            try {
                two_peak_fit(peaks, true);
            } catch (const std::runtime_error& e) {
                EXPECT_STREQ(e.what(), "the device failed");
                throw;
            }
        },
        std::runtime_error);
    EXPECT_EQ(peaks.sizes.size(), 25u);  // no evaluation after the failed one
}

TEST(FitOptimizer, PolishesWithoutThreadsRunOneAfterTheOther) {
    // No thread may start (the test hook of harness/threads.hpp): the polishes run on the calling thread, one
    // after the other, with a warning, and reach what they reach side by side.
    RecordingPeaks apart_peaks, refused_peaks;
    const auto apart = two_peak_fit(apart_peaks, false);
    struct NoThreadStarts {  // restored however the test ends
        NoThreadStarts() { harness::detail::thread_starts_left.store(0); }
        ~NoThreadStarts() { harness::detail::thread_starts_left.store(-1); }
    };
    const auto refused = [&] {
        const NoThreadStarts none;
        return two_peak_fit(refused_peaks, true);
    }();
    EXPECT_EQ(refused.best, apart.best);
    EXPECT_EQ(refused.likelihood, apart.likelihood);
    EXPECT_EQ(refused_peaks.sizes, apart_peaks.sizes);
}

TEST(FitOptimizer, SameSeedSameTrajectoryAndAResumedFitContinuesIt) {
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep_fit_resume_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        // pagmo's pso_gen does not save its swarm's memory: a checkpointed swarm is refused.
        mwsep::fit::FitOptions o;
        o.checkpoint = (dir / "pso.ckpt").string();
        Quadratic q(centre, matrix);
        EXPECT_THROW(mwsep::fit::run_fit(box3(), q, o, 100), std::invalid_argument);
    }
    for (const std::string algorithm : {"de", "cmaes"}) {
        mwsep::fit::FitOptions o;
        o.algorithm = algorithm;
        o.population = 12;
        o.generations = 8;
        o.seed = 7;
        o.polish_evaluations = 50;
        Quadratic q1(centre, matrix);
        const auto whole = mwsep::fit::run_fit(box3(), q1, o, 100);
        // The same fit, stopped after 3 generations and resumed from its checkpoint.
        o.checkpoint = (dir / (algorithm + ".ckpt")).string();
        std::filesystem::remove(o.checkpoint);
        o.stop_after = 3;
        Quadratic q2(centre, matrix);
        const auto first = mwsep::fit::run_fit(box3(), q2, o, 100);
        EXPECT_FALSE(first.completed);
        EXPECT_EQ(first.generations, 3u);
        o.stop_after = 0;
        o.resume = true;
        Quadratic q3(centre, matrix);
        const auto rest = mwsep::fit::run_fit(box3(), q3, o, 100);
        EXPECT_EQ(rest.resumed_from, 3u);
        // The history keeps the first run's generations too (the progress file of a resumed fit).
        ASSERT_EQ(rest.history.size(), whole.history.size()) << algorithm;
        for (std::size_t g = 0; g < whole.history.size(); ++g) {
            EXPECT_EQ(rest.history[g].generation, whole.history[g].generation) << algorithm << g;
            EXPECT_EQ(rest.history[g].best, whole.history[g].best) << algorithm << g;
        }
        EXPECT_EQ(rest.best, whole.best) << algorithm;
        EXPECT_EQ(rest.evaluations, whole.evaluations) << algorithm;
        // A checkpoint of another fit is refused.
        o.seed = 8;
        Quadratic q4(centre, matrix);
        EXPECT_THROW(mwsep::fit::run_fit(box3(), q4, o, 100), std::runtime_error);
    }
    std::filesystem::remove_all(dir);
}

using fit_landscapes::Rugged;

// Stopped after any generation and resumed, a fit ends exactly as the uninterrupted one: the same best, the
// same likelihoods, the same evaluation count and every generation's record; so does a finished fit whose
// checkpoint is resumed again (the champion, the population and the algorithm's state are all saved).
TEST(FitOptimizer, StopAndResumeAtEveryGenerationGivesTheUninterruptedFit) {
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep_fit_every_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const mwsep::fit::FitSpace s = fit_landscapes::resume_box();
    for (const std::string algorithm : {"cmaes", "de"}) {
        mwsep::fit::FitOptions o;
        o.algorithm = algorithm;
        o.population = 6;
        o.generations = 9;
        o.seed = 3;
        o.polish_evaluations = 30;
        o.uncertainties = false;
        Rugged f;
        const auto whole = mwsep::fit::run_fit(s, f, o, 100);
        o.checkpoint = (dir / (algorithm + ".ckpt")).string();
        for (unsigned g = 1; g < o.generations; ++g) {
            std::filesystem::remove(o.checkpoint);
            o.resume = false;
            o.stop_after = g;
            EXPECT_FALSE(mwsep::fit::run_fit(s, f, o, 100).completed);
            o.resume = true;
            o.stop_after = 0;
            const auto rest = mwsep::fit::run_fit(s, f, o, 100);
            EXPECT_EQ(rest.resumed_from, g);
            EXPECT_EQ(rest.global_likelihood, whole.global_likelihood) << algorithm << " resumed at " << g;
            EXPECT_EQ(rest.likelihood, whole.likelihood) << algorithm << " resumed at " << g;
            EXPECT_EQ(rest.best, whole.best) << algorithm << " resumed at " << g;
            EXPECT_EQ(rest.evaluations, whole.evaluations) << algorithm << " resumed at " << g;
            ASSERT_EQ(rest.history.size(), whole.history.size()) << algorithm << " resumed at " << g;
            for (std::size_t k = 0; k < whole.history.size(); ++k)
                EXPECT_EQ(rest.history[k].best, whole.history[k].best) << algorithm << " resumed at " << g << ", gen " << k;
        }
        // The checkpoint of the last generation (what a kill during the polish leaves) resumes to the same fit.
        const auto again = mwsep::fit::run_fit(s, f, o, 100);
        EXPECT_EQ(again.resumed_from, o.generations);
        EXPECT_EQ(again.likelihood, whole.likelihood) << algorithm;
        EXPECT_EQ(again.best, whole.best) << algorithm;
    }
    std::filesystem::remove_all(dir);
}

TEST(FitCpuEvaluator, ValuesDoNotDependOnTheBatchOrTheThreads) {
    mwsep::fit::FitData data;
    data.work_unit = fittest::tiny_three_parameters();
    data.stars = fittest::drawn_catalogue(data.work_unit, 300);
    const Batch batch = {{-1.4, 178.0, 23.0}, {-1.2, 176.5, 24.5}, {-30.0, 178.0, 23.0}};
    auto one = mwsep::fit::make_cpu_evaluator(data, 1);
    auto two = mwsep::fit::make_cpu_evaluator(data, 2);
    const auto a = one->evaluate(batch);
    const auto b = two->evaluate(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
        EXPECT_EQ(a[i], b[i]) << i;                             // bit for bit, over 1 or 2 threads
        EXPECT_EQ(a[i], two->evaluate({batch[i]})[0]) << i;    // and alone, with every thread
        EXPECT_EQ(a[i], mwsep::fit::cpu_likelihood(data, batch[i], 1)) << i;
    }
}

TEST(FitRecovery, TinyUnitParametersAreRecoveredWithinTheirUncertainties) {
    // Start away from the truth: epsilon +0.3, mu -1.5 deg, r +1 kpc.
    const auto [data, truth, space] = fittest::tiny_recovery();
    auto evaluator = mwsep::fit::make_cpu_evaluator(data, 0);
    mwsep::fit::FitOptions o;
    o.population = 8;
    o.generations = 4;
    o.polish_evaluations = 80;
    const auto r = mwsep::fit::run_fit(space, *evaluator, o, data.stars.size());
    ASSERT_TRUE(r.positive_definite);
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(std::isfinite(r.sigma[i]) && r.sigma[i] > 0) << space.names[i];
        EXPECT_LT(std::abs(r.best[i] - truth[i]), 5 * r.sigma[i])
            << space.names[i] << ": fitted " << r.best[i] << " +- " << r.sigma[i] << ", true " << truth[i];
    }
    EXPECT_GE(r.likelihood, r.history.front().best);
}

TEST(FitSpace, RefusesAWorkUnitWithoutOptimisedParametersOrWithAValueOutsideItsBounds) {
    auto ap = mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string());
    EXPECT_THROW(mwsep::fit::fit_space(ap), mwsep::model::InputError);  // phi = -0.47 below its bound 0
    EXPECT_NO_THROW(mwsep::fit::fit_space(ap, true));
    for (auto& b : ap.optimize_background) b = 0;
    for (auto& s : ap.streams) {
        s.optimize_weight = 0;
        for (auto& f : s.optimize) f = 0;
    }
    EXPECT_THROW(mwsep::fit::fit_space(ap, true), mwsep::model::InputError);
}

}  // namespace

TEST(FitCandidateSetup, ChangingTheParametersGivesTheSetupBuiltAfresh) {
    const auto ap = fittest::tiny_three_parameters();
    const auto base = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
    const std::vector<double> x = {-1.2, 176.5, 24.5};
    const auto m = mwsep::model::build_model(mwsep::fit::with_parameters(ap, x));
    const auto fresh = mwsep::geometry::make_setup(m);
    auto changed = base;
    mwsep::fit::set_parameters(changed, m);
    EXPECT_EQ(changed.q_inv_sq, fresh.q_inv_sq);
    EXPECT_EQ(changed.hernquist_fast_path, fresh.hernquist_fast_path);
    EXPECT_EQ(changed.model.streams.size(), fresh.model.streams.size());
    ASSERT_EQ(changed.streams.size(), fresh.streams.size());
    for (std::size_t s = 0; s < fresh.streams.size(); ++s) {
        const auto& a = changed.streams[s];
        const auto& b = fresh.streams[s];
        EXPECT_EQ(a.centre.x, b.centre.x) << s;
        EXPECT_EQ(a.centre.y, b.centre.y) << s;
        EXPECT_EQ(a.centre.z, b.centre.z) << s;
        EXPECT_EQ(a.axis.x, b.axis.x) << s;
        EXPECT_EQ(a.axis.y, b.axis.y) << s;
        EXPECT_EQ(a.axis.z, b.axis.z) << s;
        EXPECT_EQ(a.inv_two_sigma_sq, b.inv_two_sigma_sq) << s;
    }
    // The stream that moved differs from the base: the test would see a setter that changed nothing.
    EXPECT_NE(changed.streams[1].centre.x, base.streams[1].centre.x);
    // The tables (built from the geometry alone) are those of the fresh setup.
    ASSERT_EQ(changed.areas.size(), fresh.areas.size());
    EXPECT_EQ(changed.areas[0].sinb, fresh.areas[0].sinb);
    EXPECT_EQ(changed.areas[0].ids, fresh.areas[0].ids);
    // A model of another geometry is refused.
    auto other = m;
    other.areas[0].mu.steps += 1;
    EXPECT_FALSE(mwsep::fit::same_geometry(base.model, other));
    EXPECT_THROW(mwsep::fit::set_parameters(changed, other), std::invalid_argument);
}

// A fit computes every candidate's skip thresholds over several threads; the kernels take them as inputs,
// so any number of threads must give the serial values bit for bit, wherever the parts' boundaries fall.
TEST(FitSkipThresholds, EveryThreadCountGivesTheSerialValues) {
    const auto ap = mwsep::model::read_astronomy_parameters(testsupport::workunit("2s-small").string());
    const auto s = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
    for (const auto& a : s.areas) {
        ASSERT_GE(a.cells(), 3u * 4096u) << "too few cells to split";
        const auto los = mwsep::geometry::fold_line_of_sight(a);
        const auto serial = mwsep::likelihood::stream_skip_thresholds(s, a, los);
        for (const double t : serial) EXPECT_GT(t, 0.0);
        for (const unsigned threads : {2u, 3u, 7u, 16u, 1000u}) {
            const auto parallel = mwsep::likelihood::stream_skip_thresholds(s, a, los, threads);
            ASSERT_EQ(parallel.size(), serial.size());
            for (std::size_t t = 0; t < serial.size(); ++t) EXPECT_EQ(parallel[t], serial[t]) << threads << " threads, stream " << t;
        }
    }
}

#include "mwsep/fit/fit_checkpoint.hpp"
#include "mwsep/resume/checkpoint.hpp"

namespace {

mwsep::fit::FitCheckpointData small_checkpoint() {
    mwsep::fit::FitCheckpointData c;
    c.identity = {{"algorithm", "cmaes"}, {"stars", "0123456789abcdef"}};
    c.generation = 2;
    c.evaluations = 18;
    c.invalid = 1;
    for (int i = 0; i < 6; ++i) c.x.push_back({0.1 * i, 0.5, 1.0 - 0.1 * i}), c.f.push_back(2.0 - 0.1 * i);
    c.champion_x = {0.25, 0.5, 0.75};
    c.champion_f = 1.0;
    for (int g = 0; g <= 2; ++g) c.history.push_back({double(g), 6.0 * (g + 1), -1.0 - g, 0.5 * g});
    c.algorithm = "some opaque\nstate of the algorithm\n";
    return c;
}

const mwsep::fit::FitCheckpointShape shape3x6{3, 6, 40, 1e3};

/// @p text with line @p n (1-based) replaced by @p line and the checksum made right again: a forged file.
std::string forged(const std::string& text, int n, const std::string& line) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    for (int k = 0; k < 200 && at < text.size(); ++k) {
        const std::size_t end = text.find('\n', at);
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    lines.at(static_cast<std::size_t>(n - 1)) = line;
    std::string body;
    for (std::size_t k = 2; k < lines.size(); ++k) body += lines[k] + "\n";
    char sum[24];
    std::snprintf(sum, sizeof sum, "%016llx",
                  static_cast<unsigned long long>(mwsep::resume::fnv1a(body.data(), body.size())));
    return lines[0] + "\nchecksum " + sum + "\n" + body;
}

std::string refusal(const std::string& text) {
    try {
        (void)mwsep::fit::parse_fit_checkpoint(text, "ck.txt", shape3x6);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

// The checkpoint reads back exactly what was written; a damaged file is refused by its checksum, and a forged
// one (checksum made right) by its values: every count bounded before allocation, every coordinate in the
// unit box, every fitness finite, the generation within the fit.
TEST(FitCheckpoint, ReadsBackWhatWasWrittenAndRefusesDamagedOrForgedFiles) {
    const auto c = small_checkpoint();
    const std::string text = mwsep::fit::format_fit_checkpoint(c);
    const auto back = mwsep::fit::parse_fit_checkpoint(text, "ck.txt", shape3x6);
    EXPECT_EQ(back.identity, c.identity);
    EXPECT_EQ(back.generation, c.generation);
    EXPECT_EQ(back.evaluations, c.evaluations);
    EXPECT_EQ(back.x, c.x);
    EXPECT_EQ(back.f, c.f);
    EXPECT_EQ(back.champion_x, c.champion_x);
    EXPECT_EQ(back.champion_f, c.champion_f);
    EXPECT_EQ(back.history, c.history);
    EXPECT_EQ(back.algorithm, c.algorithm);
    // Damage: one byte changed, the file cut short.
    std::string flipped = text;
    flipped[text.size() / 2] ^= 1;
    EXPECT_NE(refusal(flipped).find("checksum does not match"), std::string::npos) << refusal(flipped);
    EXPECT_NE(refusal(text.substr(0, text.size() / 2)).find("ck.txt"), std::string::npos);
    EXPECT_NE(refusal("").find("not a fit checkpoint"), std::string::npos);
    // Forgeries with a valid checksum. Lines: 1 header, 2 checksum, 3-4 identity, 5 generation,
    // 6 evaluations, 7 population, 8-13 x, 14 champion, 15 history.
    const std::vector<std::pair<std::pair<int, std::string>, std::string>> cases = {
        {{5, "generation -1"}, "generation: expected a whole number"},
        {{5, "generation 41"}, "generation: expected at most 40"},
        {{6, "evaluations 18 19"}, "invalid evaluations: expected at most 18"},
        {{7, "population 1000000000 3"}, "population: expected at most 6"},
        {{7, "population 6 1000000000000"}, "dimension: expected at most 3"},
        {{8, "x 2 1000000 0.5 1"}, "coordinate 1 is 1000000: expected a point of the unit box"},
        {{8, "x nan 0 0.5 1"}, "fitness: expected a finite number"},
        {{8, "x 2 0 0.5"}, "'x' needs 4 values, found 3"},
        {{14, "champion 1.0 0.25 inf 0.75"}, "coordinate: expected a finite number"},
        {{14, "champion 5.0 0.25 0.5 0.75"}, "better than the champion"},
        {{15, "history 1000000000000"}, "history: expected at most 3"},
    };
    for (const auto& [edit, message] : cases) {
        const std::string why = refusal(forged(text, edit.first, edit.second));
        EXPECT_NE(why.find(message), std::string::npos) << edit.second << ": " << why;
        EXPECT_NE(why.find("ck.txt: line " + std::to_string(edit.first)), std::string::npos) << edit.second << ": " << why;
    }
    // An algorithm state whose declared length is not what follows.
    const std::size_t at = text.find("\nalgorithm ");
    const int algorithm_line = static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')) + 2;
    const std::string why = refusal(forged(text, algorithm_line, "algorithm 999999999"));
    EXPECT_NE(why.find("algorithm bytes: expected at most"), std::string::npos) << why;
    // What differs between two identities is named.
    EXPECT_EQ(mwsep::fit::identity_difference(c.identity, c.identity), "");
    EXPECT_NE(mwsep::fit::identity_difference(c.identity, {{"algorithm", "cmaes"}, {"stars", "ffff"}}).find("stars"),
              std::string::npos);
}

// A fit checkpoint of other inputs or settings is refused by run_fit, naming what differs; one whose algorithm
// state is damaged (a valid checksum over a broken archive) is refused without crashing the program.
TEST(FitCheckpoint, AFitRefusesTheCheckpointOfAnotherFitOrABrokenAlgorithmState) {
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep_fit_foreign_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    mwsep::fit::FitOptions o;
    o.algorithm = "cmaes";
    o.population = 6;
    o.generations = 4;
    o.polish_evaluations = 0;
    o.uncertainties = false;
    o.checkpoint = (dir / "c.ckpt").string();
    o.identity = {{"stars", "aaaa"}};
    o.stop_after = 2;
    Quadratic q(centre, matrix);
    (void)mwsep::fit::run_fit(box3(), q, o, 100);
    o.stop_after = 0;
    o.resume = true;
    const auto message = [&](mwsep::fit::FitOptions other) {
        try {
            Quadratic q2(centre, matrix);
            (void)mwsep::fit::run_fit(box3(), q2, other, 100);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    auto other = o;
    other.identity = {{"stars", "bbbb"}};
    EXPECT_NE(message(other).find("its stars (checkpoint: aaaa, this fit: bbbb) differs"), std::string::npos) << message(other);
    other = o;
    other.generations = 5;
    EXPECT_NE(message(other).find("generations"), std::string::npos) << message(other);
    // The algorithm's archive replaced by numbers that do not parse as one, the checksum made right.
    std::ifstream in(o.checkpoint);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::size_t at = text.find("\nalgorithm ") + 1;
    const std::string junk = "22 serialization::archive 19 0 0 9999999999 -5 nonsense\n";
    std::string body = text.substr(text.find('\n', text.find('\n') + 1) + 1);
    body = body.substr(0, at - (text.size() - body.size())) + "algorithm " + std::to_string(junk.size()) + "\n" + junk;
    char sum[24];
    std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(mwsep::resume::fnv1a(body.data(), body.size())));
    {
        std::ofstream out(o.checkpoint, std::ios::trunc);
        out << "mwsep-fit-checkpoint 3\nchecksum " << sum << "\n" << body;
    }
    EXPECT_NE(message(o).find("the algorithm's saved state cannot be read"), std::string::npos) << message(o);
    std::filesystem::remove_all(dir);
}

#include "mwsep/fit/report.hpp"

namespace {
/// The quadratic with a made-up account of its time: every candidate costs 1 s of preparation, 2 s of
/// integral, 0.25 s of likelihood and 4 s in all, so a generation's seconds are its candidates times those.
class TimedQuadratic : public Quadratic {
public:
    TimedQuadratic() : Quadratic(centre, matrix) {}
    std::vector<double> evaluate(const Batch& batch) override {
        candidates += static_cast<double>(batch.size());
        return Quadratic::evaluate(batch);
    }
    std::vector<std::pair<std::string, double>> phase_seconds() const override {
        return {{"prepare", candidates}, {"integral", 2 * candidates}, {"likelihood", 0.25 * candidates},
                {"evaluation", 4 * candidates}, {"device_wall_sums", 99.0}};
    }
    double candidates = 0;
};
}  // namespace

// Each generation's record carries the growth of the evaluator's phase sums during it (its candidates'
// seconds); an evaluator that measures nothing leaves them NaN, and the progress file leaves them empty.
TEST(FitProgress, EachGenerationCarriesTheSecondsOfItsOwnEvaluations) {
    TimedQuadratic q;
    mwsep::fit::FitOptions o;
    o.algorithm = "de";
    o.population = 8;
    o.generations = 5;
    o.polish_evaluations = 0;
    const auto r = mwsep::fit::run_fit(box3(), q, o, 100);
    ASSERT_EQ(r.history.size(), 6u);
    long long before = 0;
    for (const auto& g : r.history) {
        const double n = static_cast<double>(g.evaluations - before);  // this generation's candidates
        before = g.evaluations;
        EXPECT_GT(n, 0) << "generation " << g.generation;
        EXPECT_EQ(g.prepare_seconds, n) << "generation " << g.generation;
        EXPECT_EQ(g.integral_seconds, 2 * n) << "generation " << g.generation;
        EXPECT_EQ(g.likelihood_seconds, 0.25 * n) << "generation " << g.generation;
        EXPECT_EQ(g.evaluate_seconds, 4 * n) << "generation " << g.generation;
    }
    Quadratic plain(centre, matrix);
    const auto u = mwsep::fit::run_fit(box3(), plain, o, 100);
    for (const auto& g : u.history) {
        EXPECT_TRUE(std::isnan(g.prepare_seconds) && std::isnan(g.integral_seconds) &&
                    std::isnan(g.likelihood_seconds) && std::isnan(g.evaluate_seconds));
    }
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep_progress_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    mwsep::fit::ReportContext c;
    c.experiment = "x", c.work_unit = "w", c.evaluator = "e", c.options = o;
    mwsep::fit::write_progress((dir / "timed.csv").string(), r, c);
    mwsep::fit::write_progress((dir / "plain.csv").string(), u, c);
    const auto lines = [](const std::filesystem::path& p) {
        std::ifstream in(p);
        std::vector<std::string> out;
        for (std::string l; std::getline(in, l);) out.push_back(l);
        return out;
    };
    const auto timed = lines(dir / "timed.csv"), plain_rows = lines(dir / "plain.csv");
    ASSERT_EQ(timed.size(), 7u);
    EXPECT_EQ(timed[0], "experiment,work_unit,algorithm,evaluator,generation,evaluations,best_likelihood,seconds,"
                        "prepare_s,integral_s,likelihood_s,evaluate_s");
    const double n1 = static_cast<double>(r.history[1].evaluations - r.history[0].evaluations);
    char tail[96];
    std::snprintf(tail, sizeof tail, ",%g,%g,%g,%g", n1, 2 * n1, 0.25 * n1, 4 * n1);
    EXPECT_TRUE(timed[2].ends_with(tail)) << timed[2] << " should end with " << tail;
    ASSERT_EQ(plain_rows.size(), 7u);
    for (std::size_t i = 1; i < plain_rows.size(); ++i) EXPECT_TRUE(plain_rows[i].ends_with(",,,,")) << plain_rows[i];
    std::filesystem::remove_all(dir);
}
