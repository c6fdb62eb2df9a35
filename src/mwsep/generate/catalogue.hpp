/// @file catalogue.hpp
/// @brief Samples a synthetic star catalogue from the model itself (`mwsep generate`).
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::generate {

/// The largest envelope size along one axis: the envelope holds two doubles per cell and component, so
/// this and max_envelope_cells keep it within a few GB and its indices far from overflow.
inline constexpr int max_envelope_size = 100000;
/// The most envelope cells in all (see max_envelope_size).
inline constexpr long long max_envelope_cells = 100000000;

/// How to sample.
struct Options {
    std::size_t count = 100000;  ///< stars to draw
    std::uint64_t seed = 1;      ///< the same seed gives the same catalogue, bit for bit
    int envelope_mu = 160;       ///< envelope grid over the main area (mu x nu x r cells)
    int envelope_nu = 16;        ///< envelope cells across the stripe
    int envelope_r = 70;         ///< envelope cells along the line of sight, equal steps in g magnitude
    double margin = 3.0;         ///< envelope = margin x the largest density at a cell's corners
    int threads = 0;             ///< threads for the envelope (0: all cores); does not change the result
};

/// The catalogue and how the sampling went.
struct Report {
    model::StarCatalogue stars;              ///< the drawn stars, in the order they were accepted
    std::vector<int> component;              ///< each star's component (0 background, k stream k), in star order
    std::vector<std::size_t> per_component;  ///< stars drawn from the background, then each stream
    std::size_t proposals = 0;               ///< points proposed (accepted + rejected)
    std::size_t envelope_exceeded = 0;       ///< accepted proposals whose density exceeded the envelope
};

/// Draws stars from the mixture density of @p setup's model over its main area (cut areas excluded):
/// a component with probability E_c / Sigma_E, then a position with density proportional to that
/// component's convolved, efficiency-weighted density times the volume element r^2 cos(nu), by rejection
/// sampling against a piecewise-constant envelope. The density of a proposal is computed with the very
/// function the likelihood uses for stars. Sampling is exact wherever the envelope bounds the density;
/// `envelope_exceeded` counts the proposals where it did not (each one is slightly under-represented).
/// Throws std::runtime_error when the mixture weights cannot be sampled (their sum is infinite or 0) and
/// when the stars requested cannot be drawn: after a first budget of 1000 proposals per star (at least
/// 100000 in all) the sampler goes on while the acceptance seen predicts the count within 4e9 proposals,
/// and otherwise names the component with the lowest acceptance (a narrow stream, or a cut over the area).
Report generate_catalogue(const geometry::IntegrationSetup& setup, const Options& options);

/// Writes the component of every star of @p report (`mwsep generate --labels`): a header `star,component`, then
/// `index,component` per star in catalogue order (0 the background, k stream k): the truth a separation is
/// checked against (separate::read_labels reads it).
void write_labels(std::ostream& out, const Report& report);

}  // namespace mwsep::generate
