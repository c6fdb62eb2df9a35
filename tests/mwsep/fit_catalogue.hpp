#pragma once
// The fit tests' catalogues: stars drawn from a work unit's own parameters, so a fit knows the truth it should
// find. One place for the CPU tests (test_fit.cpp, test_fit_cache.cpp, test_fit_search.cpp, test_fit_cma.cpp) and
// the GPU tests (test_fit_gpu.cpp); and the small recovery problem the CPU tests of the searches share.
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/space.hpp"
#include "test_support.hpp"

namespace fittest {

/// @p count stars drawn from the model of @p ap with the generator's seed @p seed (its envelope on every core:
/// the thread count does not change the catalogue).
inline mwsep::model::StarCatalogue drawn_catalogue(const mwsep::model::AstronomyParameters& ap, std::size_t count,
                                                   std::uint64_t seed = mwsep::generate::Options{}.seed) {
    mwsep::generate::Options g;
    g.count = count;
    g.seed = seed;
    g.threads = 0;
    return mwsep::generate::generate_catalogue(mwsep::geometry::make_setup(mwsep::model::build_model(ap)), g).stars;
}

/// The tiny unit with three parameters to fit: the second stream's weight, mu and distance (every stream's phi lower
/// bound widened to -2 pi, so that the file's own phi values lie inside their bounds).
inline mwsep::model::AstronomyParameters tiny_three_parameters() {
    auto ap = mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string());
    for (auto& b : ap.optimize_background) b = 0;
    for (std::size_t k = 0; k < ap.streams.size(); ++k) {
        auto& s = ap.streams[k];
        s.optimize_weight = k == 1;
        for (std::size_t j = 0; j < s.optimize.size(); ++j) s.optimize[j] = k == 1 && j < 2;
        s.min[3] = -2 * std::numbers::pi;
    }
    return ap;
}

/// A recovery problem: tiny_three_parameters() with 4,000 stars drawn from it (seed 11), its true vector, and the
/// space to search: the start moved away from the truth (epsilon +0.3, mu -1.5 deg, r +1 kpc), the box 5 % of each
/// range around it.
struct TinyRecovery {
    mwsep::fit::FitData data;   ///< the unit and its catalogue
    std::vector<double> truth;  ///< the parameters the stars were drawn with
    mwsep::fit::FitSpace space; ///< where the fit searches
};

inline TinyRecovery tiny_recovery() {
    TinyRecovery t;
    t.data.work_unit = tiny_three_parameters();
    t.truth = mwsep::fit::fit_space(t.data.work_unit).start;
    t.data.stars = drawn_catalogue(t.data.work_unit, 4000, 11);
    t.space = mwsep::fit::fit_space(t.data.work_unit);
    t.space.start = {t.truth[0] + 0.3, t.truth[1] - 1.5, t.truth[2] + 1.0};
    t.space = mwsep::fit::narrowed(t.space, 0.05);
    return t;
}

}  // namespace fittest
