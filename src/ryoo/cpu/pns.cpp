#include "ryoo/cpu/pns.hpp"

#include <stdexcept>
#include <string>

#include "ryoo/pns_math.hpp"

namespace ryoo {

void validate(const PnsProblem& p) {
    if (p.edge < 2 || p.edge > pns_max_edge)
        throw std::invalid_argument("Petri net edge " + std::to_string(p.edge) + " outside 2.." + std::to_string(pns_max_edge));
    if (p.trajectories < 1) throw std::invalid_argument("Petri net: no trajectory");
}

std::uint32_t pns_trajectory_cpu(const PnsProblem& p, std::uint32_t trajectory, std::uint8_t* marking) {
    const int places = p.places();
    for (int q = 0; q < places; ++q) marking[q] = 1;
    std::uint32_t fired = 0;
    for (std::uint32_t s = 0; s < p.steps; ++s)
        fired += pns_fire(marking, p.edge, pns_draw(p.seed, trajectory, s, static_cast<std::uint32_t>(places))) ? 1u : 0u;
    return fired;
}

void pns_accumulate(PnsResult& r, const std::uint8_t* state, const std::uint32_t* firings, std::uint32_t count, int places) {
    if (r.tokens.size() != static_cast<std::size_t>(places)) r.tokens.assign(places, 0);
    for (int q = 0; q < places; ++q) {
        std::uint64_t sum = 0;
        const std::uint8_t* row = state + static_cast<std::size_t>(q) * count;
        for (std::uint32_t t = 0; t < count; ++t) sum += row[t];
        r.tokens[q] += sum;
    }
    for (std::uint32_t t = 0; t < count; ++t) r.firings += firings[t];
}

PnsResult pns_cpu(const PnsProblem& p) {
    validate(p);
    const int places = p.places();
    PnsResult r;
    r.tokens.assign(places, 0);
    std::vector<std::uint8_t> marking(places);
    for (std::uint32_t t = 0; t < p.trajectories; ++t) {
        r.firings += pns_trajectory_cpu(p, t, marking.data());
        for (int q = 0; q < places; ++q) r.tokens[q] += marking[q];
    }
    return r;
}

}  // namespace ryoo
