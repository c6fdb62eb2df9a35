/// @file separation.hpp
/// @brief Separation of a catalogue into its components (`mwsep separate`): each star's probability of
/// belonging to the background and to each stream under a fitted model, from the per-star densities and the
/// mixture terms the likelihood uses (likelihood/densities.hpp, likelihood/mixture.hpp); no formula of its own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/result.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::separate {

/// The separation of a catalogue under one model.
struct Separation {
    std::size_t components = 0;           ///< 1 + S: background, then each stream
    std::vector<double> probability;      ///< per star (catalogue order), `components` values: row-major
    std::vector<int> most_likely;         ///< per star: the component of the largest probability (the lowest
                                          ///< index on a tie); -1 for a star no component explains
    std::vector<double> expected;         ///< per component: the expected number of its stars (sum of probabilities)
    std::vector<std::size_t> assigned;    ///< per component: stars whose most likely component it is
    std::size_t unexplained = 0;          ///< stars of mixture probability 0 (the likelihood's penalty stars)
    double expected_correct = 0;          ///< sum over stars of the largest probability: the number of stars the
                                          ///< rule "most likely component" assigns correctly, expected under the model
    /// The likelihood from the same per-star densities, assembled as the fast CPU integrator's likelihood
    /// (Neumaier sums in star order): the same bits as `mwsep run --cpu fast` with the same integrals.
    model::Likelihood likelihood;
};

/// Separates @p stars under the model of @p setup with the component integrals @p integrals (computed by the
/// caller: the exact or the compressed CPU integrator) on @p threads threads (0: every core); the result does
/// not depend on @p threads. Throws std::runtime_error for integrals that are not positive and finite and,
/// as the likelihood does, for stars with a non-finite log-probability.
Separation separate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                    const model::Integrals& integrals, int threads);

/// The name of component @p c: "background", "stream1", ...; "none" for -1.
std::string component_name(int c);

/// How a separation's most likely components agree with known ones (the generator's labels).
struct Agreement {
    std::size_t stars = 0;                   ///< stars compared
    std::size_t correct = 0;                 ///< stars whose most likely component is their true one
    std::vector<std::vector<std::size_t>> confusion;  ///< [true][assigned] counts; the last column: unexplained
};

/// Compares @p s with the true components @p truth (one per star, 0 = background, k = stream k). Throws
/// std::invalid_argument when the counts differ or a label names no component of the model.
Agreement agreement(const Separation& s, const std::vector<int>& truth);

/// Reads a labels file written by `mwsep generate --labels`: a header line `star,component`, then one line
/// per star in catalogue order, `index,component` with index 0, 1, ... and component 0 (background) to
/// @p components - 1. Throws model::InputError naming the file and line otherwise.
std::vector<int> read_labels(const std::string& path, std::size_t components);

}  // namespace mwsep::separate
