/// @file integrators.hpp
/// @brief The exact-sum CPU integrators: `reference` (serial, original order, plain sums), `fast`
/// (multithreaded, vectorised, compensated sums, deterministic for any thread count) and `extended` (long
/// double throughout: the accuracy reference of the others).
#pragma once

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/progress.hpp"
#include "mwsep/model/result.hpp"
#include "mwsep/resume/checkpoint.hpp"

namespace mwsep::cpu {

/// Serial integration in the original order (mu, nu, r), one plain double sum per component and area,
/// areas combined as area 0 minus the cuts in order (spec 3.2-3.3).
/// With @p checkpoint, the run resumes from its file if there is one, saves at its interval and, on SIGINT or
/// SIGTERM, saves after the current row and throws resume::Interrupted; the result is bit-identical to an
/// uninterrupted run.
model::Integrals integrate_reference(const geometry::IntegrationSetup& s, const model::ProgressFn& progress = {},
                                     resume::Checkpoint* checkpoint = nullptr);

/// Likelihood over @p stars with one running plain sum in file order (spec 4.4).
model::Likelihood likelihood_reference(const geometry::IntegrationSetup& s, const model::StarCatalogue& stars,
                                       const model::Integrals& integrals);

/// Multithreaded integration on @p threads threads (0: all cores). Each area folds the per-r weights into
/// one table so that a cell's whole r x convolution sum is one vectorised reduction over the quadratics
/// of its line of sight; cells and mu rows are combined with Neumaier summation in a fixed order, so the
/// result does not depend on @p threads. With @p skip_negligible_streams, stream terms that a rigorous
/// bound puts below 2^-60 of the stream's integral are not evaluated (see stream_skipping.hpp).
/// @p checkpoint as for integrate_reference (each finished mu row is saved with its sums; a stop request
/// lets the rows in progress finish).
model::Integrals integrate_fast(const geometry::IntegrationSetup& s, int threads, const model::ProgressFn& progress = {},
                                bool skip_negligible_streams = true, resume::Checkpoint* checkpoint = nullptr);

/// Likelihood on @p threads threads; per-star terms summed in file order with Neumaier summation.
model::Likelihood likelihood_fast(const geometry::IntegrationSetup& s, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, int threads);

/// An accuracy reference, not a fast path: every point in long double with the direct per-point formulas
/// (no line-of-sight quadratics, whose cancellation near a narrow stream costs the double-precision exact
/// sums about 1e-12 of the integral), sums in long double with Neumaier summation in a fixed order, the
/// same rigorous skipping of negligible stream terms as integrate_fast. Deterministic for any @p threads.
model::Integrals integrate_extended(const geometry::IntegrationSetup& s, int threads,
                                    const model::ProgressFn& progress = {});

/// Number of threads to use for a request of @p threads (0 means every core the process may use).
int resolve_threads(int threads);

}  // namespace mwsep::cpu
