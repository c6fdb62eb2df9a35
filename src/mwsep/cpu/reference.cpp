// The reference CPU integrator: a direct transcription of the original order of operations (spec 3.2),
// kept deliberately plain. Its timings are the report's single-core CPU baseline.
#include <vector>

#include "mwsep/likelihood/densities.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/likelihood/likelihood.hpp"

namespace mwsep::cpu {

model::Integrals integrate_reference(const geometry::IntegrationSetup& s, const model::ProgressFn& progress) {
    const int n_comp = 1 + static_cast<int>(s.streams.size());
    std::size_t total = 0, done = 0;
    for (const auto& a : s.areas) total += static_cast<std::size_t>(a.n_mu());
    model::Integrals result;
    result.streams.assign(s.streams.size(), 0.0);
    std::vector<double> sums(n_comp);
    for (std::size_t area_index = 0; area_index < s.areas.size(); ++area_index) {
        const auto& a = s.areas[area_index];
        const int n_conv = a.r.n_conv;
        std::vector<double> acc(n_comp, 0.0);
// [reference-loop-begin]
        for (int i = 0; i < a.n_mu(); ++i) {
            for (int j = 0; j < a.n_nu(); ++j) {
                const std::size_t p = static_cast<std::size_t>(i) * a.n_nu() + j;
                const geometry::SkyDirection d{a.sinb[p], a.sinl[p], a.cosb[p], a.cosl[p]};
                for (int k = 0; k < a.r.n_r; ++k) {
                    const double volume = a.r.irv[k] * a.ids[j];
                    convolved_sums(s, &a.r.r_point[static_cast<std::size_t>(k) * n_conv],
                                   &a.r.qw_r3_n[static_cast<std::size_t>(k) * n_conv], d, sums.data());
                    for (int c = 0; c < n_comp; ++c) acc[c] += sums[c] * a.r.efficiency[k] * volume;
                }
            }
            if (progress) progress(++done, total);
        }
// [reference-loop-end]
        // Area 0 is assigned; every cut is then subtracted in order.
        const double sign = area_index == 0 ? 1.0 : -1.0;
        result.background = area_index == 0 ? acc[0] : result.background + sign * acc[0];
        for (int st = 0; st + 1 < n_comp; ++st)
            result.streams[st] = area_index == 0 ? acc[1 + st] : result.streams[st] + sign * acc[1 + st];
    }
    return result;
}

model::Likelihood likelihood_reference(const geometry::IntegrationSetup& s, const model::StarCatalogue& stars,
                                       const model::Integrals& integrals) {
    check_integrals(integrals);
    const auto w = mixture_weights(s.model);
    std::vector<double> dens(1 + s.streams.size());
    LikelihoodAssembly<PlainSum> sums(w, integrals);
    for (std::size_t n = 0; n < stars.size(); ++n) {
        star_densities(s, stars.l[n], stars.b[n], stars.r[n], dens.data());
        bool zero = false;
        const double log_probability = star_log_probability(w, integrals, dens.data(), zero);
        sums.add_star(log_probability, zero, dens.data());
    }
    sums.check_finite();
    return sums.result();
}

}  // namespace mwsep::cpu
