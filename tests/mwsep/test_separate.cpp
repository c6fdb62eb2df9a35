// The separation (`mwsep separate`): each star's probability of belonging to each component is its mixture term's
// share, from the very densities and integrals of the likelihood; on catalogues drawn with known components (the
// generator's labels) the most likely component is right as often as the model itself expects at the true
// parameters, and a separation with wrong parameters loses what the true posteriors say it must lose.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/geometry/sky.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/input_error.hpp"
#include "mwsep/separate/separation.hpp"
#include "test_support.hpp"

namespace {

using mwsep::separate::Separation;

mwsep::model::AstronomyParameters tiny() {
    return mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string());
}

mwsep::generate::Report drawn(const mwsep::model::AstronomyParameters& ap, std::size_t count, std::uint64_t seed) {
    mwsep::generate::Options o;
    o.count = count;
    o.seed = seed;
    o.envelope_mu = 40, o.envelope_nu = 8, o.envelope_r = 20;  // the tiny unit's own grid: quick to build
    auto rep = mwsep::generate::generate_catalogue(mwsep::geometry::make_setup(mwsep::model::build_model(ap)), o);
    // Exact sampling wherever the envelope bounds the density: the statistics below assume it everywhere.
    EXPECT_EQ(rep.envelope_exceeded, 0u);
    return rep;
}

Separation separated(const mwsep::model::AstronomyParameters& ap, const mwsep::model::StarCatalogue& stars,
                     int threads = 0) {
    const auto s = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
    return mwsep::separate::separate(s, stars, mwsep::cpu::integrate_fast(s, threads), threads);
}

}  // namespace

// Each star's probabilities are its terms (P_c / I_c) exp(epsilon_c) over their sum, worked here from the spec's
// formula with the unshifted weights; they sum to 1; the likelihood from the same densities is the fast CPU
// integrator's, bit for bit; and nothing depends on the thread count.
TEST(Separation, ProbabilitiesAreEachComponentsShareOfTheMixture) {
    const auto ap = tiny();
    const auto stars = drawn(ap, 400, 3).stars;
    const auto s = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
    const auto integrals = mwsep::cpu::integrate_fast(s, 0);
    const Separation one = mwsep::separate::separate(s, stars, integrals, 1);
    const Separation two = mwsep::separate::separate(s, stars, integrals, 2);
    EXPECT_EQ(one.probability, two.probability);
    EXPECT_EQ(one.likelihood.likelihood, mwsep::cpu::likelihood_fast(s, stars, integrals, 0).likelihood);
    ASSERT_EQ(one.components, 3u);
    std::vector<double> eps = {s.model.background_weight};
    for (const auto& st : s.model.streams) eps.push_back(st.weight);
    const std::vector<double> integral = {integrals.background, integrals.streams[0], integrals.streams[1]};
    std::vector<double> expected(3, 0.0);
    for (std::size_t i = 0; i < stars.size(); ++i) {
        double d[3];
        mwsep::likelihood::star_densities(s, stars.l[i], stars.b[i], stars.r[i], d);
        double total = 0, sum = 0;
        for (int c = 0; c < 3; ++c) total += d[c] / integral[c] * std::exp(eps[c]);
        int best = 0;
        for (int c = 0; c < 3; ++c) {
            const double p = one.probability[i * 3 + c];
            EXPECT_NEAR(p, d[c] / integral[c] * std::exp(eps[c]) / total, 1e-13) << "star " << i << " component " << c;
            sum += p;
            expected[c] += p;
            if (p > one.probability[i * 3 + best]) best = c;
        }
        EXPECT_NEAR(sum, 1.0, 1e-14) << "star " << i;
        EXPECT_EQ(one.most_likely[i], best) << "star " << i;
    }
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(one.expected[c], expected[c], 1e-9) << c;
    EXPECT_EQ(one.unexplained, 0u);
}

// The generator's labels: one per star, counted by component as the generator reports, written and read back.
TEST(Separation, TheGeneratorsLabelsReadBackAndBadFilesAreRefused) {
    const auto rep = drawn(tiny(), 300, 8);
    ASSERT_EQ(rep.component.size(), rep.stars.size());
    std::vector<std::size_t> count(3, 0);
    for (const int c : rep.component) ++count.at(static_cast<std::size_t>(c));
    EXPECT_EQ(count, rep.per_component);
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep_labels_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto path = (dir / "labels.csv").string();
    {
        std::ofstream out(path);
        mwsep::generate::write_labels(out, rep);
    }
    EXPECT_EQ(mwsep::separate::read_labels(path, 3), rep.component);
    // A label beyond the model's components, a star out of order, a malformed line, a missing header: refused with
    // the file and the line.
    const auto refused = [&](const std::string& text, std::size_t components) {
        {
            std::ofstream out(path);
            out << text;
        }
        try {
            (void)mwsep::separate::read_labels(path, components);
        } catch (const mwsep::model::InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(refused("star,component\n0,0\n1,3\n", 3).find(path + ":3: component 3"), std::string::npos);
    EXPECT_NE(refused("star,component\n0,0\n2,1\n", 3).find(path + ":3: expected star 1"), std::string::npos);
    EXPECT_NE(refused("star,component\n0,x\n", 3).find(path + ":2:"), std::string::npos);
    EXPECT_NE(refused("0,0\n", 3).find(path + ":1:"), std::string::npos);
    EXPECT_NE(refused("star,component\n", 3).find("no star"), std::string::npos);
    std::filesystem::remove_all(dir);
}

// At the parameters the catalogue was drawn with, the separation is the Bayes classifier: the number of stars it
// assigns to their true component has the expectation sum_i max_c p_ic (its own posteriors), with variance
// sum_i m_i (1 - m_i); and each component's stars number sum_i p_ic on average, with variance sum_i p_ic (1 - p_ic).
// The tiny unit's integrals differ from a grid 64 times finer by at most 0.3 % (data/workunits/*/expected.json),
// which moves a count by far less than its spread; the bound allows 1 % of the count besides 4.5 sigma.
TEST(Separation, AtTheTrueParametersTheAssignmentIsAsGoodAsTheModelExpects) {
    const auto ap = tiny();
    const auto rep = drawn(ap, 6000, 21);
    const Separation s = separated(ap, rep.stars);
    const auto a = mwsep::separate::agreement(s, rep.component);
    double variance = 0;
    std::vector<double> component_variance(s.components, 0.0);
    for (std::size_t i = 0; i < rep.stars.size(); ++i) {
        const double m = s.probability[i * s.components + static_cast<std::size_t>(s.most_likely[i])];
        variance += m * (1 - m);
        for (std::size_t c = 0; c < s.components; ++c) {
            const double p = s.probability[i * s.components + c];
            component_variance[c] += p * (1 - p);
        }
    }
    const double sigma = std::sqrt(variance);
    EXPECT_NEAR(static_cast<double>(a.correct), s.expected_correct, 4.5 * sigma + 0.01 * s.expected_correct)
        << a.correct << " of " << a.stars << " assigned correctly; the model expects " << s.expected_correct;
    for (std::size_t c = 0; c < s.components; ++c)
        EXPECT_NEAR(static_cast<double>(rep.per_component[c]), s.expected[c],
                    4.5 * std::sqrt(component_variance[c]) + 0.01 * s.expected[c])
            << mwsep::separate::component_name(static_cast<int>(c)) << ": drawn " << rep.per_component[c]
            << ", expected " << s.expected[c];
    // The classifier does better than naming every star background (the most numerous component).
    EXPECT_GT(a.correct, rep.per_component[0]);
}

// With wrong parameters, the stars whose most likely component changes are where the two separations part: at the
// true posteriors p, such a star is right under the true separation with probability p_m and under the wrong one
// with p_m'. So the loss, correct(truth) - correct(wrong), has the expectation sum (p_m - p_m') over those stars
// (at least 0: the Bayes classifier is the best there is) and the variance sum p_m + p_m' - (p_m - p_m')^2. A stream
// moved by a few degrees and kiloparsecs loses clearly; one moved a little loses nothing beyond that spread.
TEST(Separation, PerturbedParametersLoseWhatTheTruePosteriorsPredict) {
    const auto ap = tiny();
    const auto rep = drawn(ap, 6000, 22);
    const Separation truth = separated(ap, rep.stars);
    const std::size_t correct_truth = mwsep::separate::agreement(truth, rep.component).correct;
    const std::size_t k = truth.components;
    for (const double scale : {1.0, 0.02}) {
        auto moved = ap;
        moved.streams[1].parameters[0] += 4.0 * scale;   // stream 2's mu [deg]
        moved.streams[1].parameters[1] += 3.0 * scale;   // its distance [kpc]
        moved.streams[1].parameters[4] *= 1 + 0.6 * scale;  // its width
        moved.streams[0].weight += 1.0 * scale;          // stream 1's weight
        const Separation wrong = separated(moved, rep.stars);
        const std::size_t correct_wrong = mwsep::separate::agreement(wrong, rep.component).correct;
        double predicted = 0, variance = 0;
        std::size_t differ = 0;
        for (std::size_t i = 0; i < rep.stars.size(); ++i) {
            const int m = truth.most_likely[i], w = wrong.most_likely[i];
            if (m == w) continue;
            ++differ;
            const double pm = truth.probability[i * k + static_cast<std::size_t>(m)];
            const double pw = w < 0 ? 0.0 : truth.probability[i * k + static_cast<std::size_t>(w)];
            predicted += pm - pw;
            variance += pm + pw - (pm - pw) * (pm - pw);
        }
        const double loss = static_cast<double>(correct_truth) - static_cast<double>(correct_wrong);
        EXPECT_NEAR(loss, predicted, 4.5 * std::sqrt(variance) + 1.0)
            << "scale " << scale << ": " << differ << " stars change component";
        EXPECT_GE(predicted, 0.0);
        if (scale == 1.0) {
            EXPECT_GT(predicted, 4.5 * std::sqrt(variance)) << "the large perturbation should cost clearly";
            EXPECT_LT(correct_wrong, correct_truth);
        } else {
            EXPECT_LE(static_cast<double>(correct_wrong), static_cast<double>(correct_truth) + 4.5 * std::sqrt(variance) + 1.0);
        }
    }
}

// The stripe coordinates a separation's CSV gives each star invert the sky transform the generator draws with, to
// the rounding of the 12-decimal Galactic rotation (whose transpose is its inverse to about 1e-11 rad).
TEST(Separation, StripeCoordinatesInvertTheSkyTransform) {
    for (const int wedge : {11, 20, 86})
        for (const double mu : {140.0, 200.0, 320.0, 355.0})
            for (const double nu : {-1.2, 0.0, 0.7}) {
                const auto lb = mwsep::geometry::stripe_to_galactic(mu, nu, wedge);
                const auto back = mwsep::geometry::galactic_to_stripe(lb, wedge);
                EXPECT_NEAR(back.mu, mu, 1e-7) << wedge << " " << mu << " " << nu;
                EXPECT_NEAR(back.nu, nu, 1e-7) << wedge << " " << mu << " " << nu;
            }
}
