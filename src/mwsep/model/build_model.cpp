#include "mwsep/model/build_model.hpp"

#include <cmath>
#include <sstream>

#include "mwsep/math/constants.hpp"
#include "mwsep/model/input_error.hpp"
#include "mwsep/model/search_parameters.hpp"

namespace mwsep::model {
namespace {

std::string num(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

class Checker {
public:
    explicit Checker(const AstronomyParameters& ap) : ap_(ap) {}

    [[noreturn]] void fail(const std::string& key, int repeat, const std::string& message) const {
        const std::string lookup = repeat > 0 ? key + "#" + std::to_string(repeat) : key;
        const auto it = ap_.key_lines.find(lookup);
        throw InputError(ap_.source, it == ap_.key_lines.end() ? 0 : it->second, key, message);
    }

    /// As fail(), for value @p index of @p key in block @p repeat: when a parameter vector supplied that value,
    /// the message names the vector and the value's position in it, not the work unit's line.
    [[noreturn]] void fail_value(const std::string& key, int repeat, int index, const std::string& message) const {
        const auto it = ap_.from_vector.find(vector_slot(key, repeat, index));
        if (it != ap_.from_vector.end())
            throw InputError(it->second.first, 0, "parameters",
                             "value " + std::to_string(it->second.second + 1) + " of the parameter vector (" + key +
                                 "[" + std::to_string(index) + "] of " + ap_.source + "): " + message);
        fail(key, repeat, message);
    }

    void flags(const std::vector<int>& values, const std::string& key, int repeat) const {
        for (int f : values)
            if (f != 0 && f != 1) fail(key, repeat, "optimize flags must be 0 or 1, found " + std::to_string(f));
    }

    void axis(const GridAxis& a, const std::string& key, int repeat, bool is_nu) const {
        if (a.steps <= 0) fail(key, repeat, "steps must be positive, found " + std::to_string(a.steps));
        if (!(a.max > a.min))
            fail(key, repeat, "max (" + num(a.max) + ") must be greater than min (" + num(a.min) + ")");
        const bool is_r = key.rfind("r", 0) == 0;
        if (is_r && !(a.min >= limits::g_min && a.max <= limits::g_max))
            fail(key, repeat, "the r range (g magnitudes) must lie within [" + num(limits::g_min) + ", " +
                                  num(limits::g_max) + "], found [" + num(a.min) + ", " + num(a.max) + "]");
        if (!is_r && !is_nu && !(a.max - a.min <= 360 && std::fabs(a.min) <= 3600 && std::fabs(a.max) <= 3600))
            fail(key, repeat, "the mu range must span at most 360 degrees (within +-3600), found [" + num(a.min) + ", " +
                                  num(a.max) + "]");
        if (is_nu && (a.min < -90 || a.max > 90))
            fail(key, repeat, "nu must lie within [-90, 90] degrees, found [" + num(a.min) + ", " + num(a.max) + "]");
    }

    /// A cut is subtracted from the main area's integral, so it must lie inside that area: otherwise it
    /// removes volume that was never added (a wrong wedge, or mu not shifted by 360). mu is compared modulo
    /// 360 (spec 1.1 note e): the cut is moved by whole turns so that its min is at or above the main min.
    void cut_inside(const Area& cut, const Area& main, int repeat) const {
        const auto range = [](double lo, double hi) { return "[" + num(lo) + ", " + num(hi) + "]"; };
        if (cut.r.min < main.r.min || cut.r.max > main.r.max)
            fail("r_cut", repeat, "the cut " + range(cut.r.min, cut.r.max) + " must lie inside the main area's r " +
                                      range(main.r.min, main.r.max));
        if (cut.nu.min < main.nu.min || cut.nu.max > main.nu.max)
            fail("nu_cut", repeat, "the cut " + range(cut.nu.min, cut.nu.max) +
                                       " must lie inside the main area's nu " + range(main.nu.min, main.nu.max));
        if (cut.r.min <= main.r.min && cut.r.max >= main.r.max && cut.nu.min <= main.nu.min && cut.nu.max >= main.nu.max &&
            cut.mu.min <= main.mu.min && cut.mu.max >= main.mu.max)
            fail("mu_cut", repeat, "the cut covers the whole main area: nothing would be left to integrate");
        const double turns = std::floor((cut.mu.min - main.mu.min) / 360.0);
        const double lo = cut.mu.min - 360.0 * turns;
        const double hi = cut.mu.max - 360.0 * turns;
        if (hi > main.mu.max)
            fail("mu_cut", repeat, "the cut " + range(cut.mu.min, cut.mu.max) + " (taken modulo 360: " + range(lo, hi) +
                                       ") must lie inside the main area's mu " + range(main.mu.min, main.mu.max));
    }

private:
    const AstronomyParameters& ap_;
};

}  // namespace

Model build_model(const AstronomyParameters& ap, RBinning r_binning) {
    const Checker check(ap);
    Model m;
    m.r_binning = r_binning;
    m.background_weight = ap.background_weight;

    const auto& bg = ap.background_parameters;
    m.alpha = bg.at(0);
    m.q = bg.at(1);
    m.r0 = bg.at(2);
    m.delta = bg.at(3);
    check.flags(ap.optimize_background, "optimize_parameter", 0);
    if (!(m.q > 0))
        check.fail_value("background_parameters", 0, 1,
                   "q (flattening, index 1) must be positive, found " + num(m.q) +
                       " (the original code silently reused stale coordinates for q = 0)");
    if (!(m.r0 > 0))
        check.fail_value("background_parameters", 0, 2, "r0 (core radius, index 2) must be positive, found " + num(m.r0));
    // The model's limits: outside them a density underflows to 0 or overflows over the wedge, and the integral
    // is not a positive finite number only after the whole integration. Refused here, with the key.
    if (!(m.q >= limits::q_min && m.q <= limits::q_max))
        check.fail_value("background_parameters", 0, 1,
                         "q (flattening, index 1) must lie in [" + num(limits::q_min) + ", " + num(limits::q_max) +
                             "], found " + num(m.q));
    if (!(m.r0 >= limits::r0_min && m.r0 <= limits::r0_max))
        check.fail_value("background_parameters", 0, 2,
                         "r0 (core radius, index 2) must lie in [" + num(limits::r0_min) + ", " + num(limits::r0_max) +
                             "] kpc, found " + num(m.r0));
    if (!(std::fabs(m.alpha) <= limits::exponent_max))
        check.fail_value("background_parameters", 0, 0,
                         "alpha (inner slope, index 0) must lie in [-" + num(limits::exponent_max) + ", " +
                             num(limits::exponent_max) + "], found " + num(m.alpha));
    if (!(std::fabs(m.delta) <= limits::exponent_max))
        check.fail_value("background_parameters", 0, 3,
                         "delta (outer slope, index 3) must lie in [-" + num(limits::exponent_max) + ", " +
                             num(limits::exponent_max) + "], found " + num(m.delta));
    for (std::size_t i = 4; i < bg.size(); ++i)
        if (!std::isfinite(bg[i]))
            check.fail_value("background_parameters", 0, static_cast<int>(i),
                             "background parameter " + std::to_string(i) + " must be a finite number, found " + num(bg[i]));
    if (!std::isfinite(m.background_weight))
        check.fail("background_weight", 0, "must be a finite number, found " + num(m.background_weight));

    const int aux = ap.aux_bg_profile.value_or(0);
    if (aux != 0 && aux != 1) check.fail("aux_bg_profile", 0, "must be 0 or 1, found " + std::to_string(aux));
    if (aux == 1) {
        if (bg.size() < 7)
            check.fail("aux_bg_profile", 0,
                       "aux_bg_profile = 1 needs 7 background parameters (alpha, q, r0, delta, A, B, C), found " +
                           std::to_string(bg.size()));
        if (m.alpha != 1.0 || m.delta != 1.0)
            check.fail("aux_bg_profile", 0,
                       "aux_bg_profile = 1 needs alpha = delta = 1 (the original applied the auxiliary term only on "
                       "that path and silently dropped it otherwise)");
        m.aux_profile = true;
        m.aux_a = bg[4];
        m.aux_b = bg[5];
        m.aux_c = bg[6];
    }

    for (std::size_t s = 0; s < ap.streams.size(); ++s) {
        const auto& b = ap.streams[s];
        const int rep = static_cast<int>(s);
        check.flags(b.optimize, "optimize_parameter", rep + 1);
        if (b.optimize_weight != 0 && b.optimize_weight != 1)
            check.fail("optimize_weight", rep, "must be 0 or 1, found " + std::to_string(b.optimize_weight));
        const Stream st{b.weight, b.parameters[0], b.parameters[1], b.parameters[2], b.parameters[3], b.parameters[4]};
        if (std::fabs(st.sigma) < constants::min_stream_sigma)
            check.fail_value("stream_parameters", rep, 4,
                       "stream " + std::to_string(s + 1) + " sigma (index 4) must satisfy |sigma| >= 1e-4 kpc, found " +
                           num(st.sigma) + " (the original code produced NaN likelihoods)");
        const std::string name = "stream " + std::to_string(s + 1);
        if (!(std::fabs(st.sigma) <= limits::stream_length_max))
            check.fail_value("stream_parameters", rep, 4,
                             name + " sigma (index 4) must satisfy |sigma| <= " + num(limits::stream_length_max) +
                                 " kpc, found " + num(st.sigma));
        if (!(std::fabs(st.r) <= limits::stream_length_max))
            check.fail_value("stream_parameters", rep, 1,
                             name + " r (distance, index 1) must lie in [-" + num(limits::stream_length_max) + ", " +
                                 num(limits::stream_length_max) + "] kpc, found " + num(st.r));
        for (int j : {0, 2, 3}) {
            const double v = b.parameters[static_cast<std::size_t>(j)];
            if (!(std::fabs(v) <= limits::angle_max))
                check.fail_value("stream_parameters", rep, j,
                                 name + " parameter " + std::to_string(j) + " (an angle) must be a finite number within +-" +
                                     num(limits::angle_max) + ", found " + num(v));
        }
        if (!std::isfinite(st.weight))
            check.fail("stream_weight", rep, name + " weight must be a finite number, found " + num(st.weight));
        m.streams.push_back(st);
    }

    if (ap.convolve < 1) check.fail("convolve", 0, "must be at least 1, found " + std::to_string(ap.convolve));
    m.convolve = ap.convolve;
    if (ap.sgr_coordinates != 0 && ap.sgr_coordinates != 1)
        check.fail("sgr_coordinates", 0, "must be 0 or 1, found " + std::to_string(ap.sgr_coordinates));
    if (ap.sgr_coordinates == 1)
        check.fail("sgr_coordinates", 0, "Sagittarius stripe coordinates (1) are not supported; only SDSS stripes (0)");
    m.wedge = ap.wedge;

    check.axis(ap.main.r, "r", 0, false);
    check.axis(ap.main.mu, "mu", 0, false);
    check.axis(ap.main.nu, "nu", 0, true);
    m.areas.push_back(ap.main);
    for (std::size_t c = 0; c < ap.cuts.size(); ++c) {
        const int rep = static_cast<int>(c);
        check.axis(ap.cuts[c].r, "r_cut", rep, false);
        check.axis(ap.cuts[c].mu, "mu_cut", rep, false);
        check.axis(ap.cuts[c].nu, "nu_cut", rep, true);
        check.cut_inside(ap.cuts[c], ap.main, rep);
        m.areas.push_back(ap.cuts[c]);
    }
    return m;
}

}  // namespace mwsep::model
