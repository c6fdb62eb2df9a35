// The reference CPU integrator: a direct transcription of the original order of operations (spec 3.2),
// kept deliberately plain. Its timings are the report's single-core CPU baseline.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "mwsep/likelihood/densities.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/likelihood/likelihood.hpp"

namespace mwsep::cpu {

model::Integrals integrate_reference(const geometry::IntegrationSetup& s, const model::ProgressFn& progress,
                                     resume::Checkpoint* checkpoint) {
    const int n_comp = 1 + static_cast<int>(s.streams.size());
    std::size_t total = 0, done = 0;
    for (const auto& a : s.areas) total += static_cast<std::size_t>(a.n_mu());
    model::Integrals result;
    result.streams.assign(s.streams.size(), 0.0);
    std::vector<double> sums(n_comp);
    // A checkpoint of this serial integrator holds the rows done (a prefix of all areas' rows) and the
    // running sums after them: the current area's accumulators, then the result of the areas before it.
    resume::Progress state = resume::Progress::empty(total, 0);
    std::size_t resume_at = 0;
    if (checkpoint && checkpoint->load(state)) {
        resume_at = state.done_count();
        for (std::size_t i = 0; i < resume_at; ++i)
            if (!state.done[i] || state.carry.size() != 2u * n_comp)
                throw std::runtime_error(checkpoint->path() + ": not a checkpoint of the serial reference integrator");
        result.background = state.carry[n_comp];
        for (int st = 0; st + 1 < n_comp; ++st) result.streams[st] = state.carry[n_comp + 1 + st];
    }
    state.carry.resize(2u * n_comp);
    std::size_t area_first_row = 0;
    for (std::size_t area_index = 0; area_index < s.areas.size(); ++area_index) {
        const auto& a = s.areas[area_index];
        const std::size_t first_row = area_first_row;
        area_first_row += static_cast<std::size_t>(a.n_mu());
        if (resume_at > area_first_row) continue;  // this area's sums are already in the resumed result
        const int n_conv = a.r.n_conv;
        std::vector<double> acc(n_comp, 0.0);
        if (resume_at > first_row) acc.assign(state.carry.begin(), state.carry.begin() + n_comp);
// [reference-loop-begin]
        for (int i = 0; i < a.n_mu(); ++i) {
            if (first_row + i < resume_at) continue;  // done before the resume
            for (int j = 0; j < a.n_nu(); ++j) {
                const std::size_t p = static_cast<std::size_t>(i) * a.n_nu() + j;
                const geometry::SkyDirection d{a.sinb[p], a.sinl[p], a.cosb[p], a.cosl[p]};
                for (int k = 0; k < a.r.n_r; ++k) {
                    const double volume = a.r.irv[k] * a.ids[j];
                    likelihood::convolved_sums(s, &a.r.r_point[static_cast<std::size_t>(k) * n_conv],
                                   &a.r.qw_r3_n[static_cast<std::size_t>(k) * n_conv], d, sums.data());
                    for (int c = 0; c < n_comp; ++c) acc[c] += sums[c] * a.r.efficiency[k] * volume;
                }
            }
            if (progress) progress(++done + resume_at, total);
            if (checkpoint) {
                state.done[first_row + i] = 1;
                std::copy(acc.begin(), acc.end(), state.carry.begin());
                state.carry[n_comp] = result.background;
                std::copy(result.streams.begin(), result.streams.end(), state.carry.begin() + n_comp + 1);
                checkpoint->save_if_due(state);
                checkpoint->stop_if_requested(state);
            }
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
    likelihood::check_integrals(integrals);
    const auto w = likelihood::mixture_weights(s.model);
    std::vector<double> dens(1 + s.streams.size());
    likelihood::LikelihoodAssembly<likelihood::PlainSum> sums(w, integrals);
    for (std::size_t n = 0; n < stars.size(); ++n) {
        likelihood::star_densities(s, stars.l[n], stars.b[n], stars.r[n], dens.data());
        bool zero = false;
        const double log_probability = likelihood::star_log_probability(w, integrals, dens.data(), zero);
        sums.add_star(log_probability, zero, dens.data());
    }
    sums.check_finite();
    return sums.result();
}

}  // namespace mwsep::cpu
