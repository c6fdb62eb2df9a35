#pragma once
// The fit tests' catalogues: stars drawn from a work unit's own parameters, so a fit knows the truth it should
// find. One place for the CPU tests (test_fit.cpp, test_fit_cache.cpp) and the GPU tests (test_fit_gpu.cpp).
#include <cstddef>
#include <cstdint>
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"

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

}  // namespace fittest
