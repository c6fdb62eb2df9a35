/// @file densities.hpp
/// @brief The convolved component densities at one distance along one sky direction (spec 3.1), in the
/// original CPU's order and rounding. Used by the reference integrator and for every star.
#pragma once

#include "mwsep/geometry/tables.hpp"
#include "mwsep/math/point.hpp"

namespace mwsep::likelihood {

/// Sums over the convolution points of one distance, without the efficiency factor.
/// @param s            model, stream geometry and 1/q^2
/// @param r_point, qw  the n_conv points of this distance
/// @param d            direction cosines of the cell centre or the star
/// @param out          1 + S values: background then each stream
inline void convolved_sums(const geometry::IntegrationSetup& s, const double* r_point, const double* qw,
                           const geometry::SkyDirection& d, double* out) {
    const auto& m = s.model;
    const int n_streams = static_cast<int>(s.streams.size());
    const int n_conv = s.model.convolve;
    const double cbcl = d.cosb * d.cosl;
    const double cbsl = d.cosb * d.sinl;
    for (int c = 0; c <= n_streams; ++c) out[c] = 0.0;
    for (int k = 0; k < n_conv; ++k) {
        const auto p = math::point_position(r_point[k], cbcl, cbsl, d.sinb);
        const double rg = std::sqrt(math::flattened_radius_squared(p, s.q_inv_sq));
        if (s.hernquist_fast_path) {
            double term = qw[k] / math::hernquist_denominator(rg, m.r0);
            if (m.aux_profile) term += math::auxiliary_background_term(qw[k], r_point[k], m.aux_a, m.aux_b, m.aux_c);
            out[0] += term;
        } else {
            out[0] += math::general_background_term(qw[k], rg, m.r0, m.alpha, m.delta);
        }
        for (int st = 0; st < n_streams; ++st) {
            const auto& g = s.streams[st];
            const double dist_sq = math::stream_distance_squared(p, g.centre, g.axis);
            out[1 + st] += qw[k] * std::exp(-dist_sq / g.two_sigma_sq);
        }
    }
}

}  // namespace mwsep::likelihood
