#include "mwsep/geometry/tables.hpp"

#include <algorithm>
#include <cmath>

#include "harness/threads.hpp"
#include "mwsep/geometry/sky.hpp"
#include "mwsep/math/constants.hpp"

namespace mwsep::geometry {

using constants::deg;

SkyDirection sky_direction(double l_deg, double b_deg) {
    const double l = l_deg / deg;
    const double b = b_deg / deg;
    return {std::sin(b), std::sin(l), std::cos(b), std::cos(l)};
}

StreamGeometry make_stream_geometry(const model::Stream& s, int wedge) {
    const LB lb = stripe_to_galactic(s.mu, 0.0, wedge);
    const double l = lb.l / deg;
    const double b = lb.b / deg;
    // The original obtains x through the law of cosines; it equals r cos b cos l - R_sun up to rounding.
    const double zp = s.r * std::cos(b);
    const double R = constants::sun_r;
    const double d_sq = R * R + zp * zp - 2.0 * R * zp * std::cos(l);
    StreamGeometry g{};
    g.centre = {(zp * zp - R * R - d_sq) / (2.0 * R), zp * std::sin(l), s.r * std::sin(b)};
    g.axis = {std::sin(s.theta) * std::cos(s.phi), std::sin(s.theta) * std::sin(s.phi), std::cos(s.theta)};
    g.two_sigma_sq = 2.0 * s.sigma * s.sigma;
    g.inv_two_sigma_sq = 1.0 / g.two_sigma_sq;
    return g;
}

RTable make_r_table(const model::Area& area, model::RBinning binning, const GaussLegendre& rule,
                    const std::vector<double>& offsets) {
    RTable t;
    t.n_r = area.r.steps;
    t.n_conv = static_cast<int>(rule.nodes.size());
    const double dr = area.r.step();
    const double dmu = area.mu.step();
    const double kpc_min = std::pow(10.0, (area.r.min - 14.2) / 5.0);
    const double kpc_max = std::pow(10.0, (area.r.min + dr * t.n_r - 14.2) / 5.0);
    const double kpc_step = (kpc_max - kpc_min) / t.n_r;
    for (int k = 0; k < t.n_r; ++k) {
        double inner, outer;
        if (binning == model::RBinning::kpc) {
            inner = kpc_min + k * kpc_step;
            outer = inner + kpc_step;
        } else {
            const double g = area.r.min + k * dr;
            inner = std::pow(10.0, (g - 14.2) / 5.0);
            outer = std::pow(10.0, (g + dr - 14.2) / 5.0);
        }
        const double rbar = (outer + inner) / 2.0;
        t.irv.push_back((outer * outer * outer - inner * inner * inner) / 3.0 * dmu / deg);
        t.r_centre.push_back(rbar);
        t.efficiency.push_back(math::efficiency_factor(rbar));
        const double g_centre = math::magnitude_from_distance(rbar);
        for (int c = 0; c < t.n_conv; ++c) {
            const auto p = math::convolution_point(g_centre, offsets[c], rule.weights[c]);
            t.r_point.push_back(p.r_point);
            t.qw_r3_n.push_back(p.qw_r3_n);
        }
    }
    return t;
}

FoldedLineOfSight fold_line_of_sight(const AreaTables& a) {
    FoldedLineOfSight los;
    los.r_point = a.r.r_point;
    los.weight.resize(los.r_point.size());
    for (int k = 0; k < a.r.n_r; ++k)
        for (int c = 0; c < a.r.n_conv; ++c) {
            const std::size_t m = static_cast<std::size_t>(k) * a.r.n_conv + c;
            los.weight[m] = a.r.qw_r3_n[m] * a.r.efficiency[k] * a.r.irv[k];
        }
    los.r_min = los.r_point.empty() ? 0 : los.r_point.front();
    los.r_max = los.r_min;
    for (double r : los.r_point) los.r_min = std::min(los.r_min, r), los.r_max = std::max(los.r_max, r);
    for (double w : los.weight) los.weight_sum += w;
    los.block = a.r.n_conv;
    for (int k = 0; k < a.r.n_r; ++k) {
        double w = 0, lo = los.r_point[static_cast<std::size_t>(k) * a.r.n_conv], hi = lo;
        for (int c = 0; c < a.r.n_conv; ++c) {
            const std::size_t m = static_cast<std::size_t>(k) * a.r.n_conv + c;
            w += los.weight[m];
            lo = std::min(lo, los.r_point[m]);
            hi = std::max(hi, los.r_point[m]);
        }
        los.block_weight.push_back(w);
        los.block_r_min.push_back(lo);
        los.block_r_max.push_back(hi);
    }
    return los;
}

namespace {

AreaTables make_area(const model::Area& area, const model::Model& m, const GaussLegendre& rule,
                     const std::vector<double>& offsets, unsigned threads) {
    AreaTables a;
    a.area = area;
    a.r = make_r_table(area, m.r_binning, rule, offsets);
    const double dnu = area.nu.step();
    for (int j = 0; j < area.nu.steps; ++j) {
        const double lo = area.nu.min + j * dnu;
        a.ids.push_back(std::cos((90.0 - lo - dnu) / deg) - std::cos((90.0 - lo) / deg));
        a.nu_centre.push_back(lo + 0.5 * dnu);
    }
    const double dmu = area.mu.step();
    for (int i = 0; i < area.mu.steps; ++i) a.mu_centre.push_back((area.mu.min + i * dmu) + 0.5 * dmu);
    const std::size_t cells = a.cells();
    a.sinb.resize(cells);
    a.sinl.resize(cells);
    a.cosb.resize(cells);
    a.cosl.resize(cells);
    // Each mu row's cells on their own (the same values on any number of threads): a row a task.
    harness::parallel_for(static_cast<std::size_t>(area.mu.steps), static_cast<int>(std::max(1u, threads)),
                          [&](std::size_t i) {
                              for (int j = 0; j < area.nu.steps; ++j) {
                                  const LB lb = stripe_to_galactic(a.mu_centre[i], a.nu_centre[j], m.wedge);
                                  const SkyDirection d = sky_direction(lb.l, lb.b);
                                  const std::size_t p = i * static_cast<std::size_t>(area.nu.steps) + j;
                                  a.sinb[p] = d.sinb;
                                  a.sinl[p] = d.sinl;
                                  a.cosb[p] = d.cosb;
                                  a.cosl[p] = d.cosl;
                              }
                          },
                          "mwsep");
    return a;
}

}  // namespace

IntegrationSetup make_setup(const model::Model& model, unsigned threads) {
    IntegrationSetup s;
    s.model = model;
    s.rule = gauss_legendre(model.convolve);
    for (double x : s.rule.nodes) s.offsets.push_back(constants::xr * x);
    for (const auto& st : model.streams) s.streams.push_back(make_stream_geometry(st, model.wedge));
    s.q_inv_sq = 1.0 / (model.q * model.q);
    s.hernquist_fast_path = model.alpha == 1.0 && model.delta == 1.0;
    for (const auto& area : model.areas) s.areas.push_back(make_area(area, model, s.rule, s.offsets, threads));
    return s;
}

}  // namespace mwsep::geometry
