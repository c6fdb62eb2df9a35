#include "mwsep/fit/integral_cache.hpp"

#include <bit>
#include <sstream>

#include "mwsep/likelihood/likelihood.hpp"

namespace mwsep::fit {
namespace {

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

/// Stores @p value under @p key, or, where the key is known, checks that the value is the same bits.
void remember(std::map<ComponentKey, double>& into, std::size_t capacity, const ComponentKey& key, double value,
              const char* what) {
    const auto found = into.find(key);
    if (found != into.end()) {
        if (bits(found->second) != bits(value)) {
            std::ostringstream msg;
            msg.precision(17);
            msg << "the integral cache holds " << found->second << " for a " << what << " whose integral came out "
                << value << " in another launch: this integrator's components depend on each other, so the "
                << "cache cannot be used; fit with --no-integral-cache";
            throw IntegralCacheMismatch(msg.str());
        }
        return;
    }
    if (into.size() >= capacity) into.clear();
    into.emplace(key, value);
}

}  // namespace

ComponentKeys component_keys(const model::Model& m) {
    ComponentKeys k;
    k.background = {bits(m.alpha), bits(m.q), bits(m.r0), bits(m.delta), m.aux_profile ? 1u : 0u,
                    bits(m.aux_a), bits(m.aux_b), bits(m.aux_c)};
    for (const auto& s : m.streams) k.streams.push_back({bits(s.mu), bits(s.r), bits(s.theta), bits(s.phi), bits(s.sigma)});
    return k;
}

IntegralCache::IntegralCache(std::size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

model::Integrals IntegralCache::integrals(const model::Model& candidate, const Integrate& integrate) {
    const ComponentKeys keys = component_keys(candidate);
    const std::size_t n = candidate.streams.size();
    model::Integrals out;
    out.streams.assign(n, 0.0);
    bool have_background = false;
    std::vector<std::size_t> missing;
    {
        const std::lock_guard lock(mutex_);
        if (const auto b = background_.find(keys.background); b != background_.end())
            have_background = true, out.background = b->second;
        for (std::size_t s = 0; s < n; ++s) {
            if (const auto f = streams_.find(keys.streams[s]); f != streams_.end()) out.streams[s] = f->second;
            else missing.push_back(s);
        }
        if (have_background && missing.empty()) {
            ++work_.none;
            work_.reused += static_cast<long long>(1 + n);
            return out;
        }
    }
    // The launch: the candidate itself when no stream is known, else only its missing streams (the first
    // stream where only the background is missing, since every launch integrates at least one stream).
    const bool whole = missing.size() == n;  // a model without streams too: its background alone
    std::vector<std::size_t> launched = missing;
    if (!whole && launched.empty()) launched.push_back(0);
    model::Model part;
    if (!whole) {
        part = candidate;
        part.streams.clear();
        for (const std::size_t s : launched) part.streams.push_back(candidate.streams[s]);
    }
    const model::Integrals computed = integrate(whole ? candidate : part);
    if (computed.streams.size() != launched.size())
        throw std::logic_error("the integrator returned " + std::to_string(computed.streams.size()) + " stream integrals for " +
                               std::to_string(launched.size()) + " streams");
    likelihood::check_integrals(computed);
    const std::lock_guard lock(mutex_);
    remember(background_, capacity_, keys.background, computed.background, "background");
    out.background = computed.background;
    for (std::size_t k = 0; k < launched.size(); ++k) {
        const std::size_t s = launched[k];
        remember(streams_, capacity_, keys.streams[s], computed.streams[k], "stream");
        out.streams[s] = computed.streams[k];
    }
    ++(whole ? work_.full : work_.partial);
    work_.components += static_cast<long long>(1 + launched.size());
    work_.reused += static_cast<long long>(n - missing.size() - (missing.empty() ? 1 : 0));
    return out;
}

IntegralWork IntegralCache::work() const {
    const std::lock_guard lock(mutex_);
    return work_;
}

}  // namespace mwsep::fit
