/// @file integral_cache.hpp
/// @brief The integrals of a fit's candidates component by component, each computed once: the background's
/// integral depends on the background's shape parameters alone (q, r0, alpha, delta, the auxiliary term) and a
/// stream's on its own five (mu, r, theta, phi, sigma); no weight enters any integral. Where a candidate
/// shares a component's parameters, bit for bit, with a candidate evaluated before, that component's integral
/// is taken from the cache, and only the others are integrated, in one launch with the missing streams alone.
///
/// Why the values are the same bits as a full integration: every exact integrator (the fast CPU one, the
/// modern and lean kernels) computes each component with its own accumulators, in the same point order, and
/// skips a stream's terms by a threshold computed from that stream alone; no component's arithmetic reads
/// another's. Whenever a launch recomputes a component the cache already holds (the background beside the
/// missing streams, or a stream launched only to carry the background), the two values are compared, and a
/// difference stops the fit (IntegralCacheMismatch) instead of mixing values. The tests compare cached and
/// uncached Hessians bit for bit on the CPU and on every GPU variant a fit can use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "mwsep/model/result.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::fit {

/// The exact bits of the parameters one component's integral depends on.
using ComponentKey = std::vector<std::uint64_t>;

/// Every component's key of one model: the background's, then one per stream in model order.
struct ComponentKeys {
    ComponentKey background;              ///< alpha, q, r0, delta, the auxiliary flag and its A, B, C
    std::vector<ComponentKey> streams;    ///< mu, r, theta, phi, sigma of each stream (not its weight)
};

/// The keys of @p model's components.
ComponentKeys component_keys(const model::Model& model);

/// A cached component computed again with a different value: the integrator's components are not
/// independent of each other, so the cache must not be used (fit with --no-integral-cache).
class IntegralCacheMismatch : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// How the integrals of the candidates evaluated so far were obtained.
struct IntegralWork {
    long long full = 0;        ///< candidates integrated whole (every component missing, or no cache)
    long long partial = 0;     ///< candidates whose launch held only the missing streams
    long long none = 0;        ///< candidates whose every component came from the cache
    long long components = 0;  ///< component integrals computed (background and streams, over all launches)
    long long reused = 0;      ///< component integrals taken from the cache
};

/// The cache of one fit: shared by the evaluator's threads (every method locks). A candidate's value is the
/// same whichever thread or device computed any of its components.
class IntegralCache {
public:
    /// Integrates a model (a candidate, or the candidate with only some of its streams) with every other
    /// input of the fit unchanged; returns the components of that model in its own order.
    using Integrate = std::function<model::Integrals(const model::Model&)>;

    /// A cache that forgets everything once it holds more than @p capacity values of one kind (the
    /// Hessian's stencil needs a few hundred; a global search's candidates never repeat).
    explicit IntegralCache(std::size_t capacity = 1 << 16);

    /// The integrals of @p candidate: the cached components, and the others by one call of @p integrate,
    /// on @p candidate itself when every stream is missing, otherwise on a copy that holds only the missing
    /// streams (the first stream alone where only the background is missing). Values come back only when
    /// every component is a positive finite number, and only such values are stored; otherwise the
    /// integrator's or check_integrals()'s exception propagates. Throws IntegralCacheMismatch where a
    /// recomputed component differs from its cached value.
    model::Integrals integrals(const model::Model& candidate, const Integrate& integrate);

    /// The account of every candidate so far.
    IntegralWork work() const;

private:
    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::map<ComponentKey, double> background_;
    std::map<ComponentKey, double> streams_;  // a stream's integral does not depend on its position
    IntegralWork work_;
};

}  // namespace mwsep::fit
