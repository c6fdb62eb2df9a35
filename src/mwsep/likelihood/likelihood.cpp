#include "mwsep/likelihood/likelihood.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "mwsep/likelihood/densities.hpp"
#include "mwsep/likelihood/mixture.hpp"
#include "mwsep/math/constants.hpp"

namespace mwsep::likelihood {

MixtureWeights mixture_weights(const model::Model& m) {
    MixtureWeights w;
    // The largest epsilon; a NaN anywhere makes the shift NaN (std::max would skip it), so that every
    // weight is NaN and the likelihood refuses it rather than dropping a component.
    w.shift = m.background_weight;
    for (const auto& s : m.streams) w.shift = std::isnan(s.weight) || s.weight > w.shift ? s.weight : w.shift;
    if (std::isnan(m.background_weight)) w.shift = m.background_weight;
    // With an infinite epsilon, epsilon - shift is NaN or -inf: no finite mixture exists, so NaN throughout.
    if (!std::isfinite(w.shift)) w.shift = std::numeric_limits<double>::quiet_NaN();
    w.background = std::exp(m.background_weight - w.shift);
    w.sum = w.background;
    for (const auto& s : m.streams) {
        w.streams.push_back(std::exp(s.weight - w.shift));
        w.sum += w.streams.back();
    }
    return w;
}

void check_integrals(const model::Integrals& integrals) {
    bool ok = std::isfinite(integrals.background) && integrals.background > 0;
    for (double v : integrals.streams) ok = ok && std::isfinite(v) && v > 0;
    if (ok) return;
    std::ostringstream msg;
    msg.precision(17);
    msg << "an integral is not a positive finite number (cuts larger than the wedge, or an underflow): background "
        << integrals.background;
    for (std::size_t s = 0; s < integrals.streams.size(); ++s) msg << ", stream " << s + 1 << " " << integrals.streams[s];
    throw std::runtime_error(msg.str());
}

void star_densities(const geometry::IntegrationSetup& s, double l_deg, double b_deg, double r_kpc, double* out) {
    const int n_conv = s.model.convolve;
    // A star has its own distance, hence its own convolution points: at most a few hundred, on the stack.
    double r_point[1024];
    double qw[1024];
    std::vector<double> heap_r, heap_q;
    double* rp = r_point;
    double* q = qw;
    if (n_conv > 1024) {
        heap_r.resize(n_conv);
        heap_q.resize(n_conv);
        rp = heap_r.data();
        q = heap_q.data();
    }
    const double g_centre = math::magnitude_from_distance(r_kpc);
    for (int k = 0; k < n_conv; ++k) {
        const auto p = math::convolution_point(g_centre, s.offsets[k], s.rule.weights[k]);
        rp[k] = p.r_point;
        q[k] = p.qw_r3_n;
    }
    convolved_sums(s, rp, q, geometry::sky_direction(l_deg, b_deg), out);
    const double efficiency = math::efficiency_factor(r_kpc);
    for (std::size_t c = 0; c <= s.streams.size(); ++c) out[c] *= efficiency;
}

namespace {

/// The integrals and weights of every component in component order, and room for one star's terms: the
/// arrays mixture_terms() takes. On the stack for up to 16 components (a CPU evaluation allocates nothing per
/// star), on the heap beyond.
class ComponentTables {
public:
    ComponentTables(const MixtureWeights& w, const model::Integrals& integrals) : n_(1 + w.streams.size()) {
        if (n_ > inline_components) heap_.resize(3 * n_);
        double* b = buffer();
        b[0] = integrals.background;
        b[n_] = w.background;
        for (std::size_t s = 0; s < w.streams.size(); ++s) b[1 + s] = integrals.streams[s], b[n_ + 1 + s] = w.streams[s];
    }
    int components() const { return static_cast<int>(n_); }
    const double* integrals() { return buffer(); }
    const double* weights() { return buffer() + n_; }
    double* terms() { return buffer() + 2 * n_; }

private:
    static constexpr std::size_t inline_components = 16;
    double* buffer() { return heap_.empty() ? stack_ : heap_.data(); }
    std::size_t n_;
    double stack_[3 * inline_components];
    std::vector<double> heap_;
};

}  // namespace

double star_log_probability(const MixtureWeights& w, const model::Integrals& integrals, const double* densities,
                            bool& zero) {
    ComponentTables t(w, integrals);
    // Sigma_c (P_c / I_c) E_c, then over Sigma_E (spec 4.2): the original CPU's order and rounding.
    const double p = mixture_terms(t.components(), densities, t.integrals(), t.weights(), t.terms()) / w.sum;
    zero = p == 0.0;
    return zero ? constants::zero_probability_penalty : std::log(p) / std::log(10.0);
}

bool star_membership(const MixtureWeights& w, const model::Integrals& integrals, const double* densities,
                     double* probability) {
    ComponentTables t(w, integrals);
    const double total = mixture_terms(t.components(), densities, t.integrals(), t.weights(), t.terms());
    membership(t.components(), t.terms(), total, probability);
    return total > 0;
}

double diagnostic_term(double density, double integral, double weight, const MixtureWeights& w) {
    const double u = (density / integral) * weight;
    // u exp(shift) >= 1e-15, in logarithms; log(0) = -inf fails it, as u = 0 failed the unshifted test.
    static const double log_threshold = std::log(constants::diagnostic_threshold);
    return std::log(u) + w.shift >= log_threshold ? std::log10(u / w.sum) : constants::diagnostic_penalty;
}

}  // namespace mwsep::likelihood
