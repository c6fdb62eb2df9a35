#include "mwsep/fit/candidate_setup.hpp"

#include <stdexcept>

namespace mwsep::fit {
namespace {

bool same_axis(const model::GridAxis& a, const model::GridAxis& b) {
    return a.min == b.min && a.max == b.max && a.steps == b.steps;
}

}  // namespace

bool same_geometry(const model::Model& a, const model::Model& b) {
    if (a.wedge != b.wedge || a.convolve != b.convolve || a.r_binning != b.r_binning || a.areas.size() != b.areas.size())
        return false;
    for (std::size_t i = 0; i < a.areas.size(); ++i)
        if (!same_axis(a.areas[i].r, b.areas[i].r) || !same_axis(a.areas[i].mu, b.areas[i].mu) ||
            !same_axis(a.areas[i].nu, b.areas[i].nu))
            return false;
    return true;
}

void set_parameters(geometry::IntegrationSetup& setup, const model::Model& model) {
    if (!same_geometry(setup.model, model))
        throw std::invalid_argument("a candidate changes the work unit's integration geometry");
    // The parameter-dependent lines of geometry::make_setup; test_fit_candidate_setup compares the two.
    setup.model = model;
    setup.streams.clear();
    for (const auto& st : model.streams) setup.streams.push_back(geometry::make_stream_geometry(st, model.wedge));
    setup.q_inv_sq = 1.0 / (model.q * model.q);
    setup.hernquist_fast_path = model.alpha == 1.0 && model.delta == 1.0;
}

}  // namespace mwsep::fit
