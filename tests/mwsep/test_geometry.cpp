// Unit tests of the survey geometry, the quadrature rule and the per-area tables (spec 2.2-2.9, 7.4),
// against values worked out independently of the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "mwsep/geometry/gauss_legendre.hpp"
#include "mwsep/geometry/sky.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/math/point.hpp"
#include "mwsep/model/work_unit.hpp"

namespace {

using mwsep::geometry::GaussLegendre;
using mwsep::geometry::gauss_legendre;

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = 180.0 / kPi;

// Integral of x^k over [-1, 1].
double monomial_integral(int k) { return k % 2 ? 0.0 : 2.0 / (k + 1); }

double quadrature(const GaussLegendre& rule, int k) {
    double sum = 0;
    for (std::size_t i = 0; i < rule.nodes.size(); ++i) sum += rule.weights[i] * std::pow(rule.nodes[i], k);
    return sum;
}

// Angular distance between two longitudes [deg], taking the wrap at 360 into account.
double longitude_gap(double a, double b) {
    const double d = std::fabs(std::fmod(a - b, 360.0));
    return std::min(d, 360.0 - d);
}

// Angle [deg] between two directions given as (longitude, latitude) in degrees.
double separation(double lon1, double lat1, double lon2, double lat2) {
    const double a1 = lon1 / kDeg, b1 = lat1 / kDeg, a2 = lon2 / kDeg, b2 = lat2 / kDeg;
    const double dx = std::cos(b1) * std::cos(a1) - std::cos(b2) * std::cos(a2);
    const double dy = std::cos(b1) * std::sin(a1) - std::cos(b2) * std::sin(a2);
    const double dz = std::sin(b1) - std::sin(b2);
    return 2.0 * std::asin(std::sqrt(dx * dx + dy * dy + dz * dz) / 2.0) * kDeg;
}

double kpc(double g) { return std::pow(10.0, (g - 14.2) / 5.0); }

mwsep::model::Area make_area(double rmin, double rmax, int nr, double mumin, double mumax, int nmu, double numin,
                             double numax, int nnu) {
    return {{rmin, rmax, nr}, {mumin, mumax, nmu}, {numin, numax, nnu}};
}

mwsep::model::Model small_model(mwsep::model::RBinning binning) {
    mwsep::model::Model m;
    m.q = 0.5;
    m.r0 = 12.0;
    m.convolve = 8;
    m.wedge = 20;
    m.r_binning = binning;
    m.areas.push_back(make_area(16.0, 22.5, 70, 133.0, 249.0, 40, -1.25, 1.25, 16));
    m.areas.push_back(make_area(17.0, 21.0, 13, 140.0, 141.5, 3, -0.5, 1.0, 7));  // a cut
    return m;
}

// ---------------------------------------------------------------------------------------------------
// Gauss-Legendre (spec 2.6)
// ---------------------------------------------------------------------------------------------------

// Spec 2.6: each weight uses the derivative of the iterate before the last Newton update, so the weights
// are off by up to a few 1e-11 even for small n (n = 5: sum of weights = 2 - 2.6e-11). Exactness is
// therefore checked to 1e-10 for every n, the documented accuracy of the scheme.
TEST(GeometryGaussLegendre, SmallRulesIntegrateMonomialsExactly) {
    for (int n : {1, 2, 3, 5, 8}) {
        const auto rule = gauss_legendre(n);
        ASSERT_EQ(rule.nodes.size(), static_cast<std::size_t>(n));
        ASSERT_EQ(rule.weights.size(), static_cast<std::size_t>(n));
        for (int k = 0; k <= 2 * n - 1; ++k)
            EXPECT_NEAR(quadrature(rule, k), monomial_integral(k), 1e-10) << "n = " << n << ", k = " << k;
    }
}

TEST(GeometryGaussLegendre, SmallRuleIsNotExactBeyondItsDegree) {
    // An n-point rule is exact to degree 2n - 1 only: x^(2n) must come out visibly wrong, which shows
    // that the exactness test above has teeth.
    const auto rule = gauss_legendre(5);
    EXPECT_GT(std::fabs(quadrature(rule, 10) - monomial_integral(10)), 1e-4);
}

TEST(GeometryGaussLegendre, FivePointRuleHasTheTextbookValues) {
    const auto rule = gauss_legendre(5);
    const double x1 = std::sqrt(5.0 - 2.0 * std::sqrt(10.0 / 7.0)) / 3.0;
    const double x2 = std::sqrt(5.0 + 2.0 * std::sqrt(10.0 / 7.0)) / 3.0;
    const double w1 = (322.0 + 13.0 * std::sqrt(70.0)) / 900.0;
    const double w2 = (322.0 - 13.0 * std::sqrt(70.0)) / 900.0;
    const std::vector<double> nodes = {-x2, -x1, 0.0, x1, x2};
    const std::vector<double> weights = {w2, w1, 128.0 / 225.0, w1, w2};
    for (int i = 0; i < 5; ++i) {
        EXPECT_NEAR(rule.nodes[i], nodes[i], 1e-15) << i;
        EXPECT_NEAR(rule.weights[i], weights[i], 5e-11) << i;  // weights: see the quirk above
    }
}

TEST(GeometryGaussLegendre, OneAndTwoPointRules) {
    const auto one = gauss_legendre(1);
    EXPECT_NEAR(one.nodes[0], 0.0, 1e-15);
    EXPECT_NEAR(one.weights[0], 2.0, 5e-11);
    const auto two = gauss_legendre(2);
    EXPECT_NEAR(two.nodes[0], -1.0 / std::sqrt(3.0), 1e-15);
    EXPECT_NEAR(two.nodes[1], 1.0 / std::sqrt(3.0), 1e-15);
    EXPECT_NEAR(two.weights[0], 1.0, 5e-11);
    EXPECT_NEAR(two.weights[1], 1.0, 5e-11);
}

TEST(GeometryGaussLegendre, RejectsNonPositiveN) {
    EXPECT_THROW(gauss_legendre(0), std::invalid_argument);
    EXPECT_THROW(gauss_legendre(-3), std::invalid_argument);
}

TEST(GeometryGaussLegendre, NodesAscendingSymmetricAndInsideTheInterval) {
    for (int n : {2, 5, 8, 119, 120}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto rule = gauss_legendre(n);
        for (int i = 0; i < n; ++i) {
            EXPECT_GT(rule.nodes[i], -1.0);
            EXPECT_LT(rule.nodes[i], 1.0);
            EXPECT_GT(rule.weights[i], 0.0);
            if (2 * i + 1 == n) {
                EXPECT_NEAR(rule.nodes[i], 0.0, 1e-15);  // the middle node of an odd rule
            } else {
                EXPECT_EQ(rule.nodes[i], -rule.nodes[n - 1 - i]);
            }
            EXPECT_EQ(rule.weights[i], rule.weights[n - 1 - i]);
            if (i > 0) {
                EXPECT_LT(rule.nodes[i - 1], rule.nodes[i]);
            }
        }
    }
}

TEST(GeometryGaussLegendre, Rule120IntegratesMonomialsToTheDocumentedAccuracy) {
    // The weights sum to 2 only to ~2.5e-11 (spec 2.6 quirk), hence 1e-10 here.
    const auto rule = gauss_legendre(120);
    for (int k = 0; k <= 239; ++k)
        EXPECT_NEAR(quadrature(rule, k), monomial_integral(k), 1e-10) << "k = " << k;
}

TEST(GeometryGaussLegendre, Rule120MatchesSpecValues) {
    const auto rule = gauss_legendre(120);
    ASSERT_EQ(rule.nodes.size(), 120u);
    EXPECT_NEAR(rule.nodes[0], -0.99980086565895898, 1e-16);
    EXPECT_NEAR(rule.nodes[119], 0.99980086565895898, 1e-16);
    EXPECT_NEAR(rule.weights[0], 5.110260636949801e-4, 1e-17);
    const double sum = std::accumulate(rule.weights.begin(), rule.weights.end(), 0.0);
    EXPECT_NEAR(sum, 1.99999999997549, 1e-13);
    // The quirk is real: the sum differs from 2 by more than rounding.
    EXPECT_GT(2.0 - sum, 1e-11);
}

// ---------------------------------------------------------------------------------------------------
// Stripe geometry (spec 2.2)
// ---------------------------------------------------------------------------------------------------

TEST(GeometrySky, StripeInclinationSpecExamples) {
    using mwsep::geometry::stripe_inclination;
    EXPECT_DOUBLE_EQ(stripe_inclination(20), 25.0);
    EXPECT_DOUBLE_EQ(stripe_inclination(21), 27.5);
    EXPECT_DOUBLE_EQ(stripe_inclination(79), -7.5);
    EXPECT_DOUBLE_EQ(stripe_inclination(82), 0.0);
    EXPECT_DOUBLE_EQ(stripe_inclination(86), 10.0);
    EXPECT_DOUBLE_EQ(stripe_inclination(10), 0.0);
    EXPECT_DOUBLE_EQ(stripe_inclination(46), 90.0);   // last stripe without the 180 shift
    EXPECT_DOUBLE_EQ(stripe_inclination(47), -87.5);  // first stripe with it
}

struct Bound2Case {
    double theta, phi, want_theta, want_phi;
};

TEST(GeometrySky, Bound2Cases) {
    const Bound2Case cases[] = {
        {10.0, 20.0, 10.0, 20.0},      // already normal
        {100.0, 10.0, 80.0, 190.0},    // over the north pole
        {-100.0, 350.0, -80.0, 170.0}, // over the south pole, longitude wraps
        {370.0, -30.0, 10.0, 330.0},   // both wrap
        {-190.0, 725.0, 10.0, 185.0},  // -190 wraps to 170, past the pole: 10, longitude turned by 180
        {90.0, 123.0, 90.0, 0.0},      // pole: longitude set to 0
        {-90.0, 45.0, -90.0, 0.0},
        {180.0, 0.0, 0.0, 180.0},      // the antipode along the meridian
        {0.0, 360.0, 0.0, 0.0},
        {0.0, -0.0, 0.0, 0.0},
    };
    for (const auto& c : cases) {
        double theta = c.theta, phi = c.phi;
        mwsep::geometry::bound2(theta, phi);
        EXPECT_DOUBLE_EQ(theta, c.want_theta) << "theta " << c.theta << ", phi " << c.phi;
        EXPECT_DOUBLE_EQ(phi, c.want_phi) << "theta " << c.theta << ", phi " << c.phi;
    }
}

TEST(GeometrySky, Bound2OutputAlwaysInRange) {
    for (double theta = -725.0; theta <= 725.0; theta += 7.3) {
        for (double phi = -1000.0; phi <= 1000.0; phi += 91.7) {
            double t = theta, p = phi;
            mwsep::geometry::bound2(t, p);
            EXPECT_GE(t, -90.0);
            EXPECT_LE(t, 90.0);
            EXPECT_GE(p, 0.0);
            EXPECT_LT(p, 360.0);
            // The direction on the sphere is unchanged.
            const double a = theta / kDeg, b = phi / kDeg, c = t / kDeg, d = p / kDeg;
            EXPECT_NEAR(std::cos(a) * std::cos(b), std::cos(c) * std::cos(d), 1e-12);
            EXPECT_NEAR(std::cos(a) * std::sin(b), std::cos(c) * std::sin(d), 1e-12);
            EXPECT_NEAR(std::sin(a), std::sin(c), 1e-12);
        }
    }
}

TEST(GeometrySky, StripeNodeLiesOnTheEquator) {
    for (int w : {10, 20, 21, 79, 86}) {
        const auto eq = mwsep::geometry::stripe_to_equatorial(95.0, 0.0, w);
        EXPECT_NEAR(eq.ra, 95.0, 1e-12) << w;
        EXPECT_NEAR(eq.dec, 0.0, 1e-12) << w;
    }
}

TEST(GeometrySky, NinetyDegreesFromTheNodeTheDeclinationIsTheInclinationPlusNu) {
    // At mu = node + 90 the stripe's great circle reaches its highest declination, i(w), at RA 185;
    // moving by nu across the stripe moves the declination by nu along the same meridian.
    for (int w : {20, 21, 79, 82, 86}) {
        for (double nu : {-1.25, 0.0, 1.25}) {
            const auto eq = mwsep::geometry::stripe_to_equatorial(185.0, nu, w);
            EXPECT_NEAR(eq.ra, 185.0, 1e-10) << "wedge " << w << ", nu " << nu;
            EXPECT_NEAR(eq.dec, mwsep::geometry::stripe_inclination(w) + nu, 1e-10) << "wedge " << w;
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Equatorial <-> Galactic (spec 2.3)
// ---------------------------------------------------------------------------------------------------

TEST(GeometrySky, NorthGalacticPole) {
    const auto lb = mwsep::geometry::equatorial_to_galactic({192.85948, 27.12825});
    EXPECT_NEAR(lb.b, 90.0, 1e-4);
}

TEST(GeometrySky, GalacticCentre) {
    const auto lb = mwsep::geometry::equatorial_to_galactic({266.40510, -28.93617});
    EXPECT_NEAR(longitude_gap(lb.l, 0.0), 0.0, 1e-4) << "l = " << lb.l;
    EXPECT_NEAR(lb.b, 0.0, 1e-4);
    EXPECT_GE(lb.l, 0.0);
    EXPECT_LT(lb.l, 360.0);
}

TEST(GeometrySky, GalacticToEquatorialOfThePoleAndTheCentre) {
    const auto pole = mwsep::geometry::galactic_to_equatorial({0.0, 90.0});
    EXPECT_NEAR(pole.ra, 192.85948, 1e-4);
    EXPECT_NEAR(pole.dec, 27.12825, 1e-4);
    // The reference position is itself rounded to 1e-4 deg in l and b (it maps to l = 4.9e-5,
    // b = -7.6e-5), and RA differences are stretched by 1/cos(dec), hence 2e-4 in RA.
    const auto centre = mwsep::geometry::galactic_to_equatorial({0.0, 0.0});
    EXPECT_NEAR(centre.ra, 266.40510, 2e-4);
    EXPECT_NEAR(centre.dec, -28.93617, 1e-4);
}

TEST(GeometrySky, GalacticEquatorialRoundTrip) {
    for (double l = 0.5; l < 360.0; l += 23.7) {
        for (double b = -87.0; b <= 87.0; b += 14.5) {
            const auto eq = mwsep::geometry::galactic_to_equatorial({l, b});
            EXPECT_GE(eq.ra, 0.0);
            EXPECT_LT(eq.ra, 360.0);
            EXPECT_LE(std::fabs(eq.dec), 90.0);
            const auto back = mwsep::geometry::equatorial_to_galactic(eq);
            // The 12-decimal matrix is orthogonal only to ~4e-11, so a round trip moves a point by up to ~2e-8 deg.
            EXPECT_LT(separation(back.l, back.b, l, b), 1e-7) << l << " " << b;
        }
    }
}

TEST(GeometrySky, EquatorialGalacticRoundTrip) {
    for (double ra = 1.0; ra < 360.0; ra += 31.1) {
        for (double dec = -85.0; dec <= 85.0; dec += 17.0) {
            const auto lb = mwsep::geometry::equatorial_to_galactic({ra, dec});
            EXPECT_GE(lb.l, 0.0);
            EXPECT_LT(lb.l, 360.0);
            const auto back = mwsep::geometry::galactic_to_equatorial(lb);
            EXPECT_LT(separation(back.ra, back.dec, ra, dec), 1e-7) << ra << " " << dec;
        }
    }
}

TEST(GeometrySky, StripeToGalacticIsTheComposition) {
    const auto eq = mwsep::geometry::stripe_to_equatorial(200.0, 0.7, 21);
    const auto direct = mwsep::geometry::equatorial_to_galactic(eq);
    const auto composed = mwsep::geometry::stripe_to_galactic(200.0, 0.7, 21);
    EXPECT_EQ(direct.l, composed.l);
    EXPECT_EQ(direct.b, composed.b);
}

// ---------------------------------------------------------------------------------------------------
// Stream geometry (spec 2.5)
// ---------------------------------------------------------------------------------------------------

TEST(GeometryStream, Wedge20Stream1CentreDirection) {
    const auto lb = mwsep::geometry::stripe_to_galactic(148.010257, 0.0, 20);
    EXPECT_NEAR(lb.l, 212.0289311, 1e-6);
    EXPECT_NEAR(lb.b, 45.9650925, 1e-6);
}

TEST(GeometryStream, Wedge20Stream1CentreAndAxis) {
    const mwsep::model::Stream s{-3.305187, 148.010257, 22.453902, 0.42035, 5.81432731, 0.760579};
    const auto g = mwsep::geometry::make_stream_geometry(s, 20);
    EXPECT_NEAR(g.centre.x, -21.7318418, 1e-6);
    EXPECT_NEAR(g.centre.y, -8.2774655, 1e-6);
    EXPECT_NEAR(g.centre.z, 16.1424794, 1e-6);
    EXPECT_NEAR(g.axis.x, 0.3640420, 1e-6);
    EXPECT_NEAR(g.axis.y, -0.1843982, 1e-6);
    EXPECT_NEAR(g.axis.z, 0.9129462, 1e-6);
    EXPECT_NEAR(g.axis.x * g.axis.x + g.axis.y * g.axis.y + g.axis.z * g.axis.z, 1.0, 1e-15);
    EXPECT_DOUBLE_EQ(g.two_sigma_sq, 2.0 * 0.760579 * 0.760579);
    EXPECT_DOUBLE_EQ(g.inv_two_sigma_sq, 1.0 / (2.0 * 0.760579 * 0.760579));
}

TEST(GeometryStream, Wedge20Stream2Centre) {
    const mwsep::model::Stream s{-1.361644, 177.884238, 23.882892, 1.210639, 4.67121131, 8.534378};
    const auto lb = mwsep::geometry::stripe_to_galactic(s.mu, 0.0, 20);
    EXPECT_NEAR(lb.l, 218.8053646, 1e-6);
    EXPECT_NEAR(lb.b, 75.7008247, 1e-6);
    const auto g = mwsep::geometry::make_stream_geometry(s, 20);
    EXPECT_NEAR(g.centre.x, -13.0967485, 1e-6);
    EXPECT_NEAR(g.centre.y, -3.6965894, 1e-6);
    EXPECT_NEAR(g.centre.z, 23.1429830, 1e-6);
}

TEST(GeometryStream, CentreIsAtDistanceRFromTheSun) {
    const mwsep::model::Stream s{0.0, 30.0, 17.5, 1.0, 2.0, 3.0};
    const auto g = mwsep::geometry::make_stream_geometry(s, 86);
    const double dx = g.centre.x + 8.5;
    EXPECT_NEAR(std::sqrt(dx * dx + g.centre.y * g.centre.y + g.centre.z * g.centre.z), 17.5, 1e-12);
}

// ---------------------------------------------------------------------------------------------------
// Per-distance constants (spec 2.7)
// ---------------------------------------------------------------------------------------------------

TEST(GeometryEfficiency, DetectionEfficiencySpecValues) {
    using mwsep::math::detection_efficiency;
    EXPECT_NEAR(detection_efficiency(16.0), 0.940195590, 5e-10);
    EXPECT_NEAR(detection_efficiency(20.0), 0.937366805, 5e-10);
    EXPECT_NEAR(detection_efficiency(22.5), 0.802060461, 5e-10);
    EXPECT_NEAR(detection_efficiency(23.5877), 0.4701, 1e-15);
}

// ---------------------------------------------------------------------------------------------------
// r grid and per-area tables (spec 2.8, 2.9, 7.4)
// ---------------------------------------------------------------------------------------------------

mwsep::geometry::RTable r_table(double rmin, double rmax, int nr, mwsep::model::RBinning binning, int n_conv = 8) {
    const auto rule = gauss_legendre(n_conv);
    std::vector<double> offsets;
    for (double x : rule.nodes) offsets.push_back(1.8 * x);
    return mwsep::geometry::make_r_table(make_area(rmin, rmax, nr, 133.0, 249.0, 1600, -1.25, 1.25, 160), binning,
                                         rule, offsets);
}

TEST(GeometryRGrid, KpcBinningSpecEndpoints) {
    const auto t = r_table(16.0, 22.5, 700, mwsep::model::RBinning::kpc);
    ASSERT_EQ(t.r_centre.size(), 700u);
    const double r_min = 2.29086765276777, r_max = 45.7088189614875, dr = 0.0620256447267425;
    EXPECT_NEAR(t.r_centre.front() - dr / 2, r_min, 1e-12);
    EXPECT_NEAR(t.r_centre.back() + dr / 2, r_max, 1e-11);
    EXPECT_NEAR(t.r_centre[1] - t.r_centre[0], dr, 1e-12);
    EXPECT_NEAR(t.r_centre[400] - t.r_centre[399], dr, 1e-12);
    const double dmu = (249.0 - 133.0) / 1600;
    const double inner = r_min, outer = r_min + dr;
    EXPECT_NEAR(t.irv[0], (outer * outer * outer - inner * inner * inner) / 3.0 * dmu / kDeg, 1e-14);
}

TEST(GeometryRGrid, MagnitudeBinningEndpoints) {
    const auto t = r_table(16.0, 22.5, 700, mwsep::model::RBinning::magnitude);
    const double dg = 6.5 / 700;
    EXPECT_NEAR(t.r_centre.front(), (2.29086765276777 + std::pow(10.0, (16.0 + dg - 14.2) / 5.0)) / 2, 1e-12);
    EXPECT_NEAR(t.r_centre.back(), (45.7088189614875 + std::pow(10.0, (22.5 - dg - 14.2) / 5.0)) / 2, 1e-11);
    // Bins grow outwards (uniform in magnitude means wider in kpc).
    EXPECT_GT(t.r_centre[699] - t.r_centre[698], t.r_centre[1] - t.r_centre[0]);
}

TEST(GeometryRGrid, EfficiencyAndConvolutionTablesFollowSpec27) {
    const int n_conv = 8;
    const auto rule = gauss_legendre(n_conv);
    const auto t = r_table(16.0, 22.5, 35, mwsep::model::RBinning::magnitude, n_conv);
    ASSERT_EQ(t.efficiency.size(), 35u);
    ASSERT_EQ(t.r_point.size(), 35u * n_conv);
    ASSERT_EQ(t.qw_r3_n.size(), 35u * n_conv);
    const double coeff = 0.66490380066905452;
    for (int k = 0; k < 35; k += 17) {
        const double rbar = t.r_centre[k];
        const double g = 5.0 * std::log10(rbar) + 14.2;
        const double reff = 0.9402 / (std::exp(1.6171 * (g - 23.5877)) + 1.0);
        EXPECT_NEAR(t.efficiency[k] / (reff * 1.8 / (rbar * rbar * rbar)), 1.0, 1e-12) << k;
        for (int c = 0; c < n_conv; ++c) {
            const double dg = 1.8 * rule.nodes[c];
            const double r = std::pow(10.0, (g + dg - 14.2) / 5.0);
            const double qw = rule.weights[c] * r * r * r * coeff * std::exp(-dg * dg / (2 * 0.6 * 0.6));
            EXPECT_NEAR(t.r_point[k * n_conv + c] / r, 1.0, 1e-12) << k << " " << c;
            EXPECT_NEAR(t.qw_r3_n[k * n_conv + c] / qw, 1.0, 1e-10) << k << " " << c;
        }
    }
}

TEST(GeometryTables, SumOfIdsIsTheSineDifference) {
    const auto setup = mwsep::geometry::make_setup(small_model(mwsep::model::RBinning::magnitude));
    ASSERT_EQ(setup.areas.size(), 2u);
    for (const auto& a : setup.areas) {
        ASSERT_EQ(a.ids.size(), static_cast<std::size_t>(a.area.nu.steps));
        const double sum = std::accumulate(a.ids.begin(), a.ids.end(), 0.0);
        EXPECT_NEAR(sum, std::sin(a.area.nu.max / kDeg) - std::sin(a.area.nu.min / kDeg), 1e-14);
        for (double v : a.ids) EXPECT_GT(v, 0.0);
    }
}

TEST(GeometryTables, TheCellDirectionsAreTheSameOnAnyNumberOfThreads) {
    // make_setup spreads the cells' directions over threads a mu row each: the same bits as on one thread,
    // for the wedge and the cut, with more threads than rows of the cut (13) and a number that divides none.
    const auto model = small_model(mwsep::model::RBinning::magnitude);
    const auto one = mwsep::geometry::make_setup(model, 1);
    for (unsigned threads : {2u, 3u, 16u}) {
        const auto many = mwsep::geometry::make_setup(model, threads);
        ASSERT_EQ(many.areas.size(), one.areas.size());
        for (std::size_t k = 0; k < one.areas.size(); ++k) {
            const auto& a = one.areas[k];
            const auto& b = many.areas[k];
            ASSERT_EQ(a.cells(), b.cells());
            EXPECT_EQ(a.sinb, b.sinb) << threads << " threads, area " << k;
            EXPECT_EQ(a.sinl, b.sinl) << threads << " threads, area " << k;
            EXPECT_EQ(a.cosb, b.cosb) << threads << " threads, area " << k;
            EXPECT_EQ(a.cosl, b.cosl) << threads << " threads, area " << k;
            EXPECT_EQ(a.ids, b.ids);
            EXPECT_EQ(a.r.r_point, b.r.r_point);
        }
    }
    // And every cell holds the direction of its own centre, worked out apart.
    const auto& a = one.areas[0];
    const std::size_t i = 17, j = 5;
    const auto lb = mwsep::geometry::stripe_to_galactic(a.mu_centre[i], a.nu_centre[j], model.wedge);
    const std::size_t p = i * static_cast<std::size_t>(a.area.nu.steps) + j;
    EXPECT_EQ(a.sinb[p], std::sin(lb.b / kDeg));
    EXPECT_EQ(a.cosl[p], std::cos(lb.l / kDeg));
}

TEST(GeometryTables, KpcBinningSumOfIrvIsTheShellVolume) {
    const auto setup = mwsep::geometry::make_setup(small_model(mwsep::model::RBinning::kpc));
    for (const auto& a : setup.areas) {
        const auto& ax = a.area.r;
        const double r_min = kpc(ax.min);
        const double r_max = kpc(ax.min + (ax.max - ax.min) / ax.steps * ax.steps);
        const double dmu = (a.area.mu.max - a.area.mu.min) / a.area.mu.steps;
        const double want = (r_max * r_max * r_max - r_min * r_min * r_min) / 3.0 * dmu / kDeg;
        const double sum = std::accumulate(a.r.irv.begin(), a.r.irv.end(), 0.0);
        EXPECT_NEAR(sum / want, 1.0, 1e-12);
    }
}

TEST(GeometryTables, MagnitudeBinningSumOfIrvIsTheShellVolume) {
    const auto setup = mwsep::geometry::make_setup(small_model(mwsep::model::RBinning::magnitude));
    for (const auto& a : setup.areas) {
        const double r_min = kpc(a.area.r.min);
        const double r_max = kpc(a.area.r.max);
        const double dmu = (a.area.mu.max - a.area.mu.min) / a.area.mu.steps;
        const double want = (r_max * r_max * r_max - r_min * r_min * r_min) / 3.0 * dmu / kDeg;
        const double sum = std::accumulate(a.r.irv.begin(), a.r.irv.end(), 0.0);
        EXPECT_NEAR(sum / want, 1.0, 1e-12);
    }
}

TEST(GeometryTables, BinningVariantsGiveDifferentGrids) {
    const auto g = mwsep::geometry::make_setup(small_model(mwsep::model::RBinning::magnitude));
    const auto k = mwsep::geometry::make_setup(small_model(mwsep::model::RBinning::kpc));
    EXPECT_GT(std::fabs(g.areas[0].r.r_centre[10] - k.areas[0].r.r_centre[10]), 1e-3);
}

TEST(GeometryTables, CentresOffsetsAndCellDirections) {
    const auto model = small_model(mwsep::model::RBinning::magnitude);
    const auto setup = mwsep::geometry::make_setup(model);
    ASSERT_EQ(setup.offsets.size(), 8u);
    for (int c = 0; c < 8; ++c) EXPECT_DOUBLE_EQ(setup.offsets[c], 1.8 * setup.rule.nodes[c]);
    EXPECT_DOUBLE_EQ(setup.q_inv_sq, 4.0);
    EXPECT_TRUE(setup.hernquist_fast_path);
    const auto& a = setup.areas[0];
    ASSERT_EQ(a.mu_centre.size(), 40u);
    ASSERT_EQ(a.nu_centre.size(), 16u);
    ASSERT_EQ(a.sinb.size(), 40u * 16u);
    const double dmu = 116.0 / 40, dnu = 2.5 / 16;
    for (int i = 0; i < 40; ++i) EXPECT_NEAR(a.mu_centre[i], 133.0 + (i + 0.5) * dmu, 1e-12);
    for (int j = 0; j < 16; ++j) EXPECT_NEAR(a.nu_centre[j], -1.25 + (j + 0.5) * dnu, 1e-14);
    // Cell (i, j) lies at index i * n_nu + j and holds the direction of its centre.
    const int i = 7, j = 11;
    const auto lb = mwsep::geometry::stripe_to_galactic(a.mu_centre[i], a.nu_centre[j], model.wedge);
    const std::size_t p = static_cast<std::size_t>(i) * 16 + j;
    EXPECT_NEAR(a.sinb[p], std::sin(lb.b / kDeg), 1e-15);
    EXPECT_NEAR(a.cosb[p], std::cos(lb.b / kDeg), 1e-15);
    EXPECT_NEAR(a.sinl[p], std::sin(lb.l / kDeg), 1e-15);
    EXPECT_NEAR(a.cosl[p], std::cos(lb.l / kDeg), 1e-15);
    for (std::size_t q = 0; q < a.cells(); ++q) {
        EXPECT_NEAR(a.sinb[q] * a.sinb[q] + a.cosb[q] * a.cosb[q], 1.0, 1e-15);
        EXPECT_NEAR(a.sinl[q] * a.sinl[q] + a.cosl[q] * a.cosl[q], 1.0, 1e-15);
    }
}

TEST(GeometryTables, StreamsAreBuiltForTheModelWedge) {
    auto model = small_model(mwsep::model::RBinning::magnitude);
    model.streams.push_back({-3.305187, 148.010257, 22.453902, 0.42035, 5.81432731, 0.760579});
    const auto setup = mwsep::geometry::make_setup(model);
    ASSERT_EQ(setup.streams.size(), 1u);
    EXPECT_NEAR(setup.streams[0].centre.x, -21.7318418, 1e-6);
    EXPECT_NEAR(setup.streams[0].centre.z, 16.1424794, 1e-6);
}

}  // namespace
