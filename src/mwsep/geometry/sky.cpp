#include "mwsep/geometry/sky.hpp"

#include <cmath>

#include "mwsep/math/constants.hpp"

namespace mwsep::geometry {
namespace {

using constants::deg;

// SLALIB's J2000 equatorial -> Galactic rotation (row-major), 12 decimals as in the original.
constexpr double eq_to_gal[3][3] = {
    {-0.054875539726, -0.873437108010, -0.483834985808},
    {0.494109453312, -0.444829589425, 0.746982251810},
    {-0.867666135858, -0.198076386122, 0.455983795705},
};

}  // namespace

double stripe_inclination(int wedge) {
    const double eta = constants::stripe_separation * wedge - 57.5 - (wedge > 46 ? 180.0 : 0.0);
    return eta + constants::survey_centre_dec;
}

void bound2(double& theta, double& phi) {
    auto wrap_half = [](double& a) {
        while (a < -180.0) a += 360.0;
        while (a >= 180.0) a -= 360.0;
    };
    wrap_half(theta);
    if (std::fabs(theta) > 90.0) {
        theta = 180.0 - theta;
        phi += 180.0;
    }
    wrap_half(theta);
    while (phi < 0.0) phi += 360.0;
    while (phi >= 360.0) phi -= 360.0;
    if (std::fabs(theta) == 90.0) phi = 0.0;
}

RaDec stripe_to_equatorial(double mu, double nu, int wedge) {
    const double node = constants::stripe_node / deg;
    const double inc = stripe_inclination(wedge) / deg;
    const double mu_r = mu / deg;
    const double nu_r = nu / deg;
    const double x2 = std::cos(mu_r - node) * std::cos(nu_r);
    const double y2 = std::sin(mu_r - node) * std::cos(nu_r);
    const double z2 = std::sin(nu_r);
    const double x1 = x2;
    const double y1 = y2 * std::cos(inc) - z2 * std::sin(inc);
    const double z1 = y2 * std::sin(inc) + z2 * std::cos(inc);
    double ra = (std::atan2(y1, x1) + node) * deg;
    double dec = std::asin(z1) * deg;
    bound2(dec, ra);
    return {ra, dec};
}

LB equatorial_to_galactic(RaDec eq) {
    const double a = eq.ra / deg;
    const double d = eq.dec / deg;
    const double v[3] = {std::cos(a) * std::cos(d), std::sin(a) * std::cos(d), std::sin(d)};
    double g[3];
    for (int i = 0; i < 3; ++i) g[i] = eq_to_gal[i][0] * v[0] + eq_to_gal[i][1] * v[1] + eq_to_gal[i][2] * v[2];
    const double rho = std::sqrt(g[0] * g[0] + g[1] * g[1]);
    double l = rho != 0.0 ? std::atan2(g[1], g[0]) : 0.0;
    double b = g[2] != 0.0 ? std::atan2(g[2], rho) : 0.0;
    const double two_pi = 2.0 * constants::pi;
    l = std::fmod(l, two_pi);
    if (l < 0) l += two_pi;
    b = std::remainder(b, two_pi);
    double l_deg = l * deg;
    double b_deg = b * deg;
    bound2(b_deg, l_deg);
    return {l_deg, b_deg};
}

LB stripe_to_galactic(double mu, double nu, int wedge) {
    return equatorial_to_galactic(stripe_to_equatorial(mu, nu, wedge));
}

RaDec galactic_to_equatorial(LB gal) {
    const double l = gal.l / deg;
    const double b = gal.b / deg;
    const double g[3] = {std::cos(l) * std::cos(b), std::sin(l) * std::cos(b), std::sin(b)};
    double v[3];
    for (int i = 0; i < 3; ++i) v[i] = eq_to_gal[0][i] * g[0] + eq_to_gal[1][i] * g[1] + eq_to_gal[2][i] * g[2];
    double ra = std::atan2(v[1], v[0]) * deg;
    double dec = std::asin(std::fmax(-1.0, std::fmin(1.0, v[2]))) * deg;
    bound2(dec, ra);
    return {ra, dec};
}

MuNu equatorial_to_stripe(RaDec eq, int wedge) {
    const double node = constants::stripe_node / deg;
    const double inc = stripe_inclination(wedge) / deg;
    const double a = eq.ra / deg - node;
    const double d = eq.dec / deg;
    const double x1 = std::cos(a) * std::cos(d);
    const double y1 = std::sin(a) * std::cos(d);
    const double z1 = std::sin(d);
    // stripe_to_equatorial rotates by +inc about the x axis; this rotates back.
    const double y2 = y1 * std::cos(inc) + z1 * std::sin(inc);
    const double z2 = -y1 * std::sin(inc) + z1 * std::cos(inc);
    double mu = (std::atan2(y2, x1) + node) * deg;
    mu = std::fmod(mu, 360.0);
    if (mu < 0) mu += 360.0;
    return {mu, std::asin(std::fmax(-1.0, std::fmin(1.0, z2))) * deg};
}

MuNu galactic_to_stripe(LB gal, int wedge) { return equatorial_to_stripe(galactic_to_equatorial(gal), wedge); }

}  // namespace mwsep::geometry
