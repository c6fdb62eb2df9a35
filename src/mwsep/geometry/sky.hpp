/// @file sky.hpp
/// @brief Survey geometry: SDSS stripe great-circle coordinates (mu, nu) to equatorial to Galactic (spec 2.2-2.3).
#pragma once

namespace mwsep::geometry {

/// Galactic longitude and latitude [deg].
struct LB {
    double l;  ///< longitude, in [0, 360) as the conversions return it
    double b;  ///< latitude, in [-90, 90]
};

/// Equatorial right ascension and declination [deg].
struct RaDec {
    double ra;   ///< right ascension, in [0, 360) as the conversions return it
    double dec;  ///< declination, in [-90, 90]
};

/// Inclination [deg] of the great circle of SDSS stripe @p wedge (spec 2.2).
double stripe_inclination(int wedge);

/// Normalises a latitude-like @p theta and longitude-like @p phi [deg] as the original bound2 did.
void bound2(double& theta, double& phi);

/// Stripe coordinates (mu, nu) [deg] of stripe @p wedge to equatorial coordinates [deg].
RaDec stripe_to_equatorial(double mu, double nu, int wedge);

/// Equatorial J2000 to Galactic coordinates [deg], by the SLALIB rotation matrix (spec 2.3).
LB equatorial_to_galactic(RaDec eq);

/// Composition of the two: the Galactic direction of a point of stripe @p wedge.
LB stripe_to_galactic(double mu, double nu, int wedge);

/// Galactic to equatorial (the transpose rotation), used by tests and the catalogue generator.
RaDec galactic_to_equatorial(LB gal);

/// Stripe coordinates (mu, nu) [deg].
struct MuNu {
    double mu;  ///< along the stripe's great circle, in [0, 360)
    double nu;  ///< across it, in [-90, 90]
};

/// Equatorial coordinates [deg] to the stripe coordinates of stripe @p wedge: the inverse of
/// stripe_to_equatorial (the rotation about the node's axis undone), for showing stars along their stripe.
MuNu equatorial_to_stripe(RaDec eq, int wedge);

/// Galactic coordinates [deg] to the stripe coordinates of stripe @p wedge.
MuNu galactic_to_stripe(LB gal, int wedge);

}  // namespace mwsep::geometry
