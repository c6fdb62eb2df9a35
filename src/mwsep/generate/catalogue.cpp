#include "mwsep/generate/catalogue.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/geometry/sky.hpp"
#include "mwsep/math/constants.hpp"

namespace mwsep::generate {
namespace {

using constants::deg;

/// Uniform double in [0, 1) from 53 random bits: the same on every platform, unlike std distributions.
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double kpc_of(double g) { return std::pow(10.0, (g - 14.2) / 5.0); }

bool inside_cut(const model::Area& cut, double mu, double nu, double g) {
    const auto in = [](double v, const model::GridAxis& a) { return v >= a.min && v <= a.max; };
    // Cuts may be written modulo 360 (spec 1.1 note e).
    const double mu_wrapped = std::fmod(std::fmod(mu - cut.mu.min, 360.0) + 360.0, 360.0) + cut.mu.min;
    return in(g, cut.r) && in(nu, cut.nu) && in(mu_wrapped, cut.mu);
}

}  // namespace

Report generate_catalogue(const geometry::IntegrationSetup& setup, const Options& o) {
    if (o.count == 0) throw std::invalid_argument("generate: the star count must be positive");
    if (o.envelope_mu < 1 || o.envelope_nu < 1 || o.envelope_r < 1 || !(o.margin >= 1.0))
        throw std::invalid_argument("generate: envelope grid sizes must be positive and the margin at least 1");
    if (o.envelope_mu > max_envelope_size || o.envelope_nu > max_envelope_size || o.envelope_r > max_envelope_size ||
        static_cast<long long>(o.envelope_mu) * o.envelope_nu * o.envelope_r > max_envelope_cells)
        throw std::invalid_argument("generate: the envelope grid is larger than " + std::to_string(max_envelope_size) +
                                    " per axis or " + std::to_string(max_envelope_cells) + " cells in all");
    const auto& m = setup.model;
    const auto& area = m.areas.front();
    const std::size_t n_comp = 1 + setup.streams.size();
    const int nm = o.envelope_mu, nn = o.envelope_nu, nr = o.envelope_r;

    // The component of each star is drawn from the cumulative mixture weights, shifted by the largest
    // epsilon (so a common offset of every epsilon, however large, changes nothing). Only a non-finite
    // epsilon leaves no mixture to draw from; it is refused before any work.
    const auto weights = likelihood::mixture_weights(m);
    std::vector<double> component_cdf;
    double acc = weights.background;
    component_cdf.push_back(acc);
    for (double e : weights.streams) component_cdf.push_back(acc += e);
    if (!std::isfinite(component_cdf.back()) || !(component_cdf.back() > 0)) {
        std::ostringstream msg;
        msg.precision(17);
        msg << "generate: the mixture weights exp(epsilon - max epsilon) sum to " << component_cdf.back()
            << ", which cannot be sampled (background_weight " << m.background_weight;
        for (std::size_t s = 0; s < m.streams.size(); ++s) msg << ", stream " << s + 1 << " weight " << m.streams[s].weight;
        msg << "; every epsilon must be a finite number)";
        throw std::runtime_error(msg.str());
    }
    const double dmu = (area.mu.max - area.mu.min) / nm;
    const double dnu = (area.nu.max - area.nu.min) / nn;
    const double dg = (area.r.max - area.r.min) / nr;

    // Densities of every component at every node of the envelope lattice.
    const std::size_t nodes = static_cast<std::size_t>(nm + 1) * (nn + 1) * (nr + 1);
    std::vector<double> node_density(nodes * n_comp);
    cpu::parallel_for(static_cast<std::size_t>(nm + 1), cpu::resolve_threads(o.threads), [&](std::size_t i) {
        for (int j = 0; j <= nn; ++j) {
            const auto lb = geometry::stripe_to_galactic(area.mu.min + i * dmu, area.nu.min + j * dnu, m.wedge);
            for (int k = 0; k <= nr; ++k) {
                const std::size_t node = (i * (nn + 1) + j) * (nr + 1) + k;
                likelihood::star_densities(setup, lb.l, lb.b, kpc_of(area.r.min + k * dg), &node_density[node * n_comp]);
            }
        }
    });

    // Piecewise-constant envelope and each cell's share of its component's proposals.
    const std::size_t cells = static_cast<std::size_t>(nm) * nn * nr;
    std::vector<std::vector<double>> envelope(n_comp, std::vector<double>(cells));
    std::vector<std::vector<double>> cumulative(n_comp, std::vector<double>(cells));
    for (std::size_t c = 0; c < n_comp; ++c) {
        double running = 0;
        for (int i = 0; i < nm; ++i)
            for (int j = 0; j < nn; ++j) {
                const double nu_lo = area.nu.min + j * dnu;
                const double sin_span = std::sin((nu_lo + dnu) / deg) - std::sin(nu_lo / deg);
                for (int k = 0; k < nr; ++k) {
                    double peak = 0;
                    for (int corner = 0; corner < 8; ++corner) {
                        const std::size_t node = ((i + (corner & 1)) * (nn + 1) + j + ((corner >> 1) & 1)) * (nr + 1) +
                                                 k + ((corner >> 2) & 1);
                        peak = std::max(peak, node_density[node * n_comp + c]);
                    }
                    const double r_lo = kpc_of(area.r.min + k * dg), r_hi = kpc_of(area.r.min + (k + 1) * dg);
                    const double volume = (r_hi * r_hi * r_hi - r_lo * r_lo * r_lo) / 3.0 * (dmu / deg) * sin_span;
                    const std::size_t cell = (static_cast<std::size_t>(i) * nn + j) * nr + k;
                    envelope[c][cell] = o.margin * peak;
                    running += envelope[c][cell] * volume;
                    cumulative[c][cell] = running;
                }
            }
        if (!(running > 0)) throw std::runtime_error("generate: a component has zero density over the whole wedge");
    }

    Report report;
    report.per_component.assign(n_comp, 0);
    std::mt19937_64 rng(o.seed);
    std::vector<double> dens(n_comp);
    report.stars.l.reserve(o.count);
    report.stars.b.reserve(o.count);
    report.stars.r.reserve(o.count);
    report.component.reserve(o.count);
    // Every proposal can be rejected (a cut over the whole main area, or densities the envelope never
    // admits); the sampler then fails rather than running forever. With the default margin a few proposals
    // per star suffice, but a narrow stream's density is a thin tube that the envelope's lattice brackets
    // loosely, so its acceptance can be far lower. The cap therefore follows the acceptance seen so far:
    // after a first budget (a thousand proposals per star, at least a hundred thousand) the sampler goes on
    // as long as the rate seen predicts the count within max_total_proposals, and otherwise stops naming the
    // component with the lowest acceptance.
    constexpr double max_total_proposals = 4e9;
    std::size_t cap = std::max<std::size_t>(100000, o.count > SIZE_MAX / 1000 ? SIZE_MAX : o.count * 1000);
    std::vector<std::size_t> comp_proposals(n_comp, 0);
    const auto give_up = [&] {
        std::size_t worst = 0;
        double worst_rate = 2;
        for (std::size_t c = 0; c < n_comp; ++c) {
            if (comp_proposals[c] == 0) continue;
            const double rate = double(report.per_component[c]) / double(comp_proposals[c]);
            if (rate < worst_rate) worst_rate = rate, worst = c;
        }
        std::ostringstream msg;
        msg.precision(3);
        msg << "generate: " << report.proposals << " proposals gave only " << report.stars.size() << " of the " << o.count
            << " stars requested; the lowest acceptance is that of ";
        if (worst == 0) msg << "the background";
        else msg << "stream " << worst << " (sigma " << m.streams[worst - 1].sigma << ")";
        msg << ": " << report.per_component[worst] << " of " << comp_proposals[worst] << " proposals accepted. ";
        if (worst > 0)
            msg << "A narrow stream's tube is bracketed loosely by the envelope grid: a finer --envelope (more cells "
                   "across the stream) raises its acceptance; or a cut covers (nearly) all of the main area";
        else
            msg << "A cut covers (nearly) all of the main area, or the model leaves (almost) nothing to accept";
        return std::runtime_error(msg.str());
    };
    while (report.stars.size() < o.count) {
        const double pick = uniform01(rng) * component_cdf.back();
        const std::size_t c = std::upper_bound(component_cdf.begin(), component_cdf.end(), pick) - component_cdf.begin();
        const std::size_t comp = std::min(c, n_comp - 1);
        for (;;) {
            if (report.proposals >= cap) {
                // The rate seen so far predicts the proposals the whole count needs: go on while that fits.
                const double rate = double(report.stars.size()) / double(report.proposals);
                const double needed = rate > 0 ? double(o.count) / rate : INFINITY;
                if (!(needed * 1.5 < max_total_proposals)) throw give_up();
                cap = static_cast<std::size_t>(std::min(max_total_proposals, std::max(needed * 1.5, report.proposals * 1.25))) + 1;
            }
            ++comp_proposals[comp];
            ++report.proposals;
            const auto& cdf = cumulative[comp];
            const double target = uniform01(rng) * cdf.back();
            const std::size_t cell = std::min<std::size_t>(
                std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin(), cells - 1);
            const int k = static_cast<int>(cell % nr);
            const int j = static_cast<int>((cell / nr) % nn);
            const int i = static_cast<int>(cell / (static_cast<std::size_t>(nr) * nn));
            // Uniform in volume within the cell: mu uniform, sin(nu) uniform, r^3 uniform.
            const double mu = area.mu.min + (i + uniform01(rng)) * dmu;
            const double s_lo = std::sin((area.nu.min + j * dnu) / deg);
            const double s_hi = std::sin((area.nu.min + (j + 1) * dnu) / deg);
            const double nu = std::asin(s_lo + uniform01(rng) * (s_hi - s_lo)) * deg;
            const double r_lo = kpc_of(area.r.min + k * dg), r_hi = kpc_of(area.r.min + (k + 1) * dg);
            const double r3 = r_lo * r_lo * r_lo + uniform01(rng) * (r_hi * r_hi * r_hi - r_lo * r_lo * r_lo);
            const double r = std::cbrt(r3);
            const double u = uniform01(rng);
            const auto lb = geometry::stripe_to_galactic(mu, nu, m.wedge);
            likelihood::star_densities(setup, lb.l, lb.b, r, dens.data());
            if (u * envelope[comp][cell] >= dens[comp]) continue;
            if (dens[comp] > envelope[comp][cell]) ++report.envelope_exceeded;
            const double g = 5.0 * std::log10(r) + 14.2;
            bool in_cut = false;
            for (std::size_t a = 1; a < m.areas.size(); ++a) in_cut = in_cut || inside_cut(m.areas[a], mu, nu, g);
            if (in_cut) continue;
            report.stars.l.push_back(lb.l);
            report.stars.b.push_back(lb.b);
            report.stars.r.push_back(r);
            report.component.push_back(static_cast<int>(comp));
            ++report.per_component[comp];
            break;
        }
    }
    return report;
}

void write_labels(std::ostream& out, const Report& report) {
    out << "star,component\n";
    for (std::size_t i = 0; i < report.component.size(); ++i) out << i << ',' << report.component[i] << '\n';
}

}  // namespace mwsep::generate
