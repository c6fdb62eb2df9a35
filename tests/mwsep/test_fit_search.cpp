// The thesis's search methods as global searches of mwsep fit (fit/thesis_search.hpp): each climbs a quadratic to
// its maximum and recovers the tiny unit's parameters; the same seed gives the same search, with or without
// simulated late and lost results in the asynchronous genetic search (and those results reach the population only
// when they arrive); a search stopped after any generation and resumed ends as the uninterrupted one; a damaged
// state is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/optimizer.hpp"
#include "mwsep/fit/report.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/fit/thesis_search.hpp"
#include "fit_catalogue.hpp"
#include "fit_landscapes.hpp"

namespace {

using mwsep::fit::Batch;

using fit_landscapes::Quadratic;
using fit_landscapes::Rugged;
using fit_landscapes::box3;
using fit_landscapes::centre;
using fit_landscapes::matrix;

mwsep::fit::FitOptions options(const std::string& algorithm) {
    mwsep::fit::FitOptions o;
    o.algorithm = algorithm;
    o.population = 16;
    o.generations = 40;
    o.polish_evaluations = 0;  // the search alone
    o.seed = 4;
    return o;
}

}  // namespace

// Without a polish, each method reaches the quadratic's maximum: the gradient methods to the resolution of their
// line searches, the genetic search to that of a population of 16 after 40 rounds. Every generation is recorded
// with the evaluations so far and a best likelihood that never falls.
TEST(ThesisSearch, EachMethodClimbsAQuadraticToItsMaximum) {
    const std::vector<std::pair<std::string, double>> cases = {{"cgd", 1e-6}, {"line", 1e-4}, {"async-ga", 0.05}};
    for (const auto& [algorithm, tolerance] : cases) {
        Quadratic q(centre, matrix);
        auto o = options(algorithm);
        const auto r = mwsep::fit::run_fit(box3(), q, o, 100);
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.best[i], centre[i], tolerance) << algorithm << " parameter " << i;
        EXPECT_NEAR(r.likelihood, -1.5, 100 * tolerance * tolerance) << algorithm;
        EXPECT_EQ(r.evaluations, r.global_evaluations + r.hessian_evaluations) << algorithm;
        ASSERT_GE(r.history.size(), 2u) << algorithm;
        EXPECT_LE(r.history.size(), o.generations + 1u) << algorithm;
        for (std::size_t g = 1; g < r.history.size(); ++g) {
            EXPECT_GE(r.history[g].best, r.history[g - 1].best) << algorithm << " generation " << g;
            EXPECT_GT(r.history[g].evaluations, r.history[g - 1].evaluations) << algorithm << " generation " << g;
        }
        if (algorithm == "cgd") {
            // On a quadratic the line search is exact (a parabola through three points of a parabola), and
            // conjugate gradients with exact line searches reach the maximum in n = 3 steps; the next finds nothing
            // better and ends the search. Steepest ascent (a conjugation gone wrong) zig-zags for many more.
            EXPECT_LE(r.history.size(), 6u) << "cgd took " << r.history.size() - 1 << " iterations: " << r.stopped_by;
        }
        // A search that ends early says why, and only then.
        EXPECT_EQ(r.stopped_by.empty(), r.history.size() == o.generations + 1u) << algorithm << ": " << r.stopped_by;
        EXPECT_TRUE(r.positive_definite) << algorithm;
        if (algorithm != "async-ga") {
            // A gradient is one batch of 2n = 6 points (every worker busy at once); the genetic search's rounds
            // are batches of the population (16).
            EXPECT_NE(std::find(q.batches.begin(), q.batches.end(), 6u), q.batches.end()) << algorithm;
        } else {
            EXPECT_EQ(q.batches[1], 16u);
        }
    }
}

// The same seed gives the same search (the values never depend on how a batch is split, so the same on any number
// of GPUs or ranks); another seed another one, for the methods that draw random numbers.
TEST(ThesisSearch, TheSameSeedGivesTheSameSearch) {
    for (const std::string algorithm : {"cgd", "line", "async-ga"}) {
        auto o = options(algorithm);
        o.generations = 12;
        o.uncertainties = false;
        Rugged f1, f2, f3;
        const auto a = mwsep::fit::run_fit(box3(), f1, o, 100);
        const auto b = mwsep::fit::run_fit(box3(), f2, o, 100);
        EXPECT_EQ(a.best, b.best) << algorithm;
        EXPECT_EQ(a.evaluations, b.evaluations) << algorithm;
        ASSERT_EQ(a.history.size(), b.history.size()) << algorithm;
        for (std::size_t g = 0; g < a.history.size(); ++g) EXPECT_EQ(a.history[g].best, b.history[g].best) << algorithm;
        o.seed = 5;
        const auto c = mwsep::fit::run_fit(box3(), f3, o, 100);
        if (algorithm == "cgd") EXPECT_EQ(a.best, c.best);  // cgd draws nothing: the seed does not enter
        else EXPECT_NE(a.best, c.best) << algorithm;
    }
}

namespace {
/// Runs the genetic search directly, recording every point evaluated.
struct Recorded {
    std::set<std::vector<double>> evaluated;
    std::vector<std::size_t> batches;
    mwsep::fit::UnitEvaluate evaluate() {
        return [this](const Batch& b) {
            batches.push_back(b.size());
            std::vector<double> out;
            for (const auto& u : b) {
                evaluated.insert(u);
                double v = 0;
                for (double x : u) v -= (x - 0.3) * (x - 0.3);
                out.push_back(v);
            }
            return out;
        };
    }
};
}  // namespace

// The asynchronous genetic search with simulated late and lost results: reproducible from its seed; a result
// joins the population only once it has arrived (all late by at least one round: after the first round the
// population is the start alone; all lost: it never grows); a result in flight keeps its slot, so later rounds
// generate fewer individuals; and every member is a point that was evaluated.
TEST(ThesisSearch, AsyncGeneticSearchWithLateAndLostResultsIsReproducibleAndWaitsForArrivals) {
    mwsep::fit::ThesisSettings s;
    s.algorithm = "async-ga";
    s.population = 8;
    s.in_flight = 10;
    s.seed = 11;
    s.late_fraction = 0.3;
    s.lost_fraction = 0.1;
    s.max_delay = 3;
    const std::vector<double> start(4, 0.9);
    const auto run = [&](const mwsep::fit::ThesisSettings& settings, Recorded& rec, unsigned rounds) {
        auto search = mwsep::fit::make_thesis_search(settings, 4, rec.evaluate());
        search->begin(start, std::numeric_limits<double>::quiet_NaN());
        for (unsigned k = 0; k < rounds; ++k) search->step();
        return search;
    };
    Recorded r1, r2;
    const auto a = run(s, r1, 25);
    const auto b = run(s, r2, 25);
    EXPECT_EQ(a->members(), b->members());
    EXPECT_EQ(a->save(), b->save());
    EXPECT_EQ(r1.batches, r2.batches);
    for (const auto& [x, l] : a->members()) EXPECT_EQ(r1.evaluated.count(x), 1u);
    // Slots held by results in flight: some rounds generate fewer than the 10 slots.
    EXPECT_LT(*std::min_element(r1.batches.begin() + 2, r1.batches.end()), 10u);
    EXPECT_GT(a->best_likelihood(), -4 * 0.36);  // it climbs despite the delays
    // Without delays, another search (the same seed, other arrivals).
    auto prompt = s;
    prompt.late_fraction = prompt.lost_fraction = 0;
    Recorded r3;
    EXPECT_NE(run(prompt, r3, 25)->members(), a->members());
    // Every result late: after round 0 only the start is in the population; after round 1 at most round 0's
    // results delayed by one round have joined it.
    auto late = s;
    late.late_fraction = 1, late.lost_fraction = 0, late.max_delay = 2;
    Recorded r4;
    const auto l0 = run(late, r4, 0);
    ASSERT_EQ(l0->members().size(), 1u);
    EXPECT_EQ(l0->members()[0].first, start);
    // Every result lost: the population never grows beyond the start.
    auto lost = s;
    lost.late_fraction = 0, lost.lost_fraction = 1;
    Recorded r5;
    const auto l5 = run(lost, r5, 10);
    ASSERT_EQ(l5->members().size(), 1u);
    EXPECT_EQ(l5->best(), start);
    EXPECT_GT(r5.evaluated.size(), 10u);  // yet the individuals were computed (by workers that never answered)
}

// Stopped after any generation and resumed from its checkpoint, a thesis search ends exactly as the uninterrupted
// one: the same best, likelihoods, evaluation count and every generation's record (the genetic search with its
// results in flight and its random engine, the gradient methods with their direction and step).
TEST(ThesisSearch, StopAndResumeAtEveryGenerationGivesTheUninterruptedSearch) {
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep_thesis_resume_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const mwsep::fit::FitSpace s = fit_landscapes::resume_box();
    for (const std::string algorithm : {"cgd", "line", "async-ga"}) {
        mwsep::fit::FitOptions o;
        o.algorithm = algorithm;
        o.population = 6;
        o.generations = 7;
        o.seed = 3;
        o.polish_evaluations = 20;
        o.uncertainties = false;
        if (algorithm == "async-ga") o.late_fraction = 0.3, o.lost_fraction = 0.2, o.max_delay = 2, o.in_flight = 5;
        Rugged f;
        const auto whole = mwsep::fit::run_fit(s, f, o, 100);
        o.checkpoint = (dir / (algorithm + ".ckpt")).string();
        for (unsigned g = 1; g < whole.generations; ++g) {
            std::filesystem::remove(o.checkpoint);
            o.resume = false;
            o.stop_after = g;
            EXPECT_FALSE(mwsep::fit::run_fit(s, f, o, 100).completed) << algorithm << " " << g;
            o.resume = true;
            o.stop_after = 0;
            const auto rest = mwsep::fit::run_fit(s, f, o, 100);
            EXPECT_EQ(rest.resumed_from, g) << algorithm;
            EXPECT_EQ(rest.likelihood, whole.likelihood) << algorithm << " resumed at " << g;
            EXPECT_EQ(rest.best, whole.best) << algorithm << " resumed at " << g;
            EXPECT_EQ(rest.evaluations, whole.evaluations) << algorithm << " resumed at " << g;
            EXPECT_EQ(rest.stopped_by, whole.stopped_by) << algorithm << " resumed at " << g;
            ASSERT_EQ(rest.history.size(), whole.history.size()) << algorithm << " resumed at " << g;
            for (std::size_t k = 0; k < whole.history.size(); ++k)
                EXPECT_EQ(rest.history[k].best, whole.history[k].best) << algorithm << " resumed at " << g << ", gen " << k;
        }
        // A finished search's checkpoint (a kill during the polish) resumes to the same fit.
        const auto again = mwsep::fit::run_fit(s, f, o, 100);
        EXPECT_EQ(again.best, whole.best) << algorithm;
        std::filesystem::remove(o.checkpoint);
    }
    std::filesystem::remove_all(dir);
}

// A state that no search wrote is refused with what is wrong, never half-loaded.
TEST(ThesisSearch, ADamagedStateIsRefused) {
    const auto evaluate = [](const Batch& b) { return std::vector<double>(b.size(), -1.0); };
    const std::vector<std::pair<std::vector<double>, double>> one = {{{0.5, 0.5}, -1.0}};
    const auto refusal = [&](const std::string& algorithm, const std::string& text,
                             const std::vector<std::pair<std::vector<double>, double>>& members) {
        mwsep::fit::ThesisSettings s;
        s.algorithm = algorithm;
        s.population = 4;
        try {
            mwsep::fit::make_thesis_search(s, 2, evaluate)->load(text, members);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(refusal("cgd", "cgd 1\niteration 3\nsince_restart 1\nalpha 0.01\ngradient 1 2\ndirection 1 2\nstopped \n", one),
              "accepted");
    EXPECT_NE(refusal("cgd", "cgd 2\n", one).find("does not begin with 'cgd 1'"), std::string::npos);
    EXPECT_NE(refusal("cgd", "cgd 1\niteration -3\n", one).find("whole number"), std::string::npos);
    EXPECT_NE(refusal("cgd", "cgd 1\niteration 3\nsince_restart 9\n", one).find("from 0 to 2"), std::string::npos);
    EXPECT_NE(refusal("cgd", "cgd 1\niteration 3\nsince_restart 1\nalpha nan\n", one).find("finite"), std::string::npos);
    EXPECT_NE(refusal("cgd", "cgd 1\niteration 3\nsince_restart 1\nalpha 0.01\ngradient 1\n", one).find("expected 2 values"),
              std::string::npos);
    EXPECT_NE(refusal("cgd", "cgd 1\niteration 3\nsince_restart 1\nalpha 0.01\ngradient\ndirection\nstopped \nmore\n", one)
                  .find("more than"),
              std::string::npos);
    EXPECT_NE(refusal("cgd", "cgd 1\n", {}).find("holds 0 points"), std::string::npos);
    EXPECT_NE(refusal("line", "line 1\niteration 1\nrange 0.1\nrng 12 abc\nstopped \n", one).find("random engine"),
              std::string::npos);
    EXPECT_NE(refusal("async-ga", "async-ga 1\nround 2\nrng 5\n", one).find("does not read back"), std::string::npos);
    // A result in flight outside the box, or due before now.
    std::mt19937_64 rng(1);
    std::ostringstream engine;
    engine << rng;
    const std::string head = "async-ga 1\nround 4\nrng " + engine.str() + "\nflight 1\n";
    EXPECT_NE(refusal("async-ga", head + "f 6 7 -1 0.5 1.5\n", one).find("outside [0, 1]"), std::string::npos);
    EXPECT_NE(refusal("async-ga", head + "f 3 5 -1 0.5 0.5\n", one).find("due before now"), std::string::npos);
    EXPECT_EQ(refusal("async-ga", head + "f 6 7 -1 0.5 0.5\n", one), "accepted");
}

// Each method recovers the tiny unit's three parameters (a stream's weight, mu and distance) from a start away from
// them, within five Hessian sigmas, on a catalogue drawn with them, without the polish's help.
TEST(ThesisSearch, EachMethodRecoversTheTinyUnitsParameters) {
    const auto [data, truth, space] = fittest::tiny_recovery();
    for (const std::string algorithm : {"cgd", "line", "async-ga"}) {
        auto evaluator = mwsep::fit::make_cpu_evaluator(data, 0);
        mwsep::fit::FitOptions o;
        o.algorithm = algorithm;
        o.population = algorithm == "line" ? 8 : 10;
        o.generations = algorithm == "async-ga" ? 16 : algorithm == "line" ? 6 : 15;
        o.polish_evaluations = 0;
        const auto r = mwsep::fit::run_fit(space, *evaluator, o, data.stars.size());
        ASSERT_TRUE(r.positive_definite) << algorithm;
        for (int i = 0; i < 3; ++i)
            EXPECT_LT(std::abs(r.best[i] - truth[i]), 5 * r.sigma[i])
                << algorithm << " " << space.names[i] << ": fitted " << r.best[i] << " +- " << r.sigma[i] << ", true " << truth[i];
        EXPECT_GT(r.likelihood, r.history.front().best) << algorithm;
    }
}

// Where the Hessian is not negative definite, the report names the flat directions by parameter: a likelihood
// that does not depend on one combination of two parameters is flat exactly along it.
TEST(ThesisSearch, TheReportNamesTheFlatDirections) {
    class Ridge : public mwsep::fit::BatchEvaluator {
    public:
        std::vector<double> evaluate(const Batch& batch) override {
            std::vector<double> out;
            for (const auto& x : batch) out.push_back(-(x[0] + x[1] - 1) * (x[0] + x[1] - 1) - (x[2] - 0.5) * (x[2] - 0.5));
            return out;
        }
        std::string description() const override { return "ridge"; }
    } ridge;
    mwsep::fit::FitSpace s;
    s.names = {"a", "b", "c"};
    s.lower = {-2, -2, -2};
    s.upper = {2, 2, 2};
    s.start = {0.2, 0.3, 0.1};
    mwsep::fit::FitOptions o = options("cgd");
    o.generations = 10;
    const auto r = mwsep::fit::run_fit(s, ridge, o, 1000);
    // The finite differences of a quadratic are exact but for rounding: the flat eigenvalue is 0 or a rounding
    // error of either sign (so the Cholesky factorisation may or may not fail); either way it is flat.
    const auto flat = mwsep::fit::flat_directions(r);
    ASSERT_EQ(flat.size(), 1u);
    EXPECT_LT(std::abs(r.scaled_fisher_eigenvalues[flat[0]]), 1e-9 * r.scaled_fisher_eigenvalues.back());
    const auto& v = r.scaled_fisher_eigenvectors[flat[0]];
    // Along a - b (in step units, the steps being equal here): components +-1/sqrt 2, none along c.
    EXPECT_NEAR(std::abs(v[0]), std::sqrt(0.5), 1e-3);
    EXPECT_NEAR(v[0], -v[1], 1e-3);
    EXPECT_NEAR(v[2], 0.0, 1e-3);
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep_flat_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    mwsep::fit::ReportContext c;
    c.options = o;
    mwsep::fit::write_report((dir / "r.json").string(), s, r, c);
    std::ifstream in(dir / "r.json");
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto at = text.find("\"flat_directions\"");
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_NE(text.find("\"direction\"", at), std::string::npos);
    EXPECT_NE(text.find("\"search_stopped_by\""), std::string::npos);
    std::filesystem::remove_all(dir);
}
