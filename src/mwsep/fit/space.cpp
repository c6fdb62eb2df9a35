#include "mwsep/fit/space.hpp"

#include <cmath>

#include <algorithm>
#include <stdexcept>

#include "mwsep/model/input_error.hpp"
#include "mwsep/model/search_parameters.hpp"

namespace mwsep::fit {
namespace {

/// The names of the background parameters in file order (spec 1.1.1).
const char* background_name(std::size_t i) {
    static const char* names[] = {"alpha", "q", "r0", "delta", "A", "B", "C"};
    return i < 7 ? names[i] : "background";
}

/// The names of a stream's five parameters in file order.
const char* stream_parameter_name(std::size_t j) {
    static const char* names[] = {"mu", "r", "theta", "phi", "sigma"};
    return j < 5 ? names[j] : "parameter";
}

}  // namespace

FitSpace fit_space(const model::AstronomyParameters& ap, bool allow_outside) {
    FitSpace s;
    const auto add = [&](const std::string& name, double value, double lo, double hi, const std::string& key) {
        const auto line = ap.key_lines.count(key) ? ap.key_lines.at(key) : 0;
        if (!(lo < hi))
            throw model::InputError(ap.source, line, key,
                                    "the search bounds of " + name + " are empty (min " + std::to_string(lo) +
                                        " >= max " + std::to_string(hi) + ")");
        // The search works in the unit box u = (x - lo) / (hi - lo): a width that overflows makes every
        // candidate NaN, and one so wide that the start does not survive the round trip searches another point.
        if (!std::isfinite(hi - lo))
            throw model::InputError(ap.source, line, key,
                                    "the search bounds of " + name + " [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                        "] have a width that is not a finite number: expected finite bounds whose "
                                        "difference is finite");
        if (std::isfinite(value)) {
            const double back = lo + (value - lo) / (hi - lo) * (hi - lo);
            if (!(std::abs(back - value) <= 1e-6 * (std::abs(value) + 1)))
                throw model::InputError(ap.source, line, key,
                                        "the search bounds of " + name + " [" + std::to_string(lo) + ", " +
                                            std::to_string(hi) + "] are too wide for its value " + std::to_string(value) +
                                            ": in the search's unit box the value rounds to " + std::to_string(back) +
                                            "; expected bounds of the value's own scale");
        }
        if (!allow_outside && (value < lo || value > hi))
            throw model::InputError(ap.source, line, key,
                                    "the value of " + name + " (" + std::to_string(value) + ") lies outside its bounds [" +
                                        std::to_string(lo) + ", " + std::to_string(hi) + "]");
        s.names.push_back(name);
        s.start.push_back(value);
        s.lower.push_back(lo);
        s.upper.push_back(hi);
    };
    for (std::size_t i = 0; i < ap.background_parameters.size(); ++i)
        if (ap.optimize_background[i])
            add(background_name(i), ap.background_parameters[i], ap.background_min[i], ap.background_max[i],
                "background_min");
    for (std::size_t k = 0; k < ap.streams.size(); ++k) {
        const auto& st = ap.streams[k];
        const std::string prefix = "stream" + std::to_string(k + 1) + ".";
        if (st.optimize_weight) add(prefix + "epsilon", st.weight, st.weight_min, st.weight_max, "stream_weight_min");
        for (std::size_t j = 0; j < st.parameters.size(); ++j)
            if (st.optimize[j]) add(prefix + stream_parameter_name(j), st.parameters[j], st.min[j], st.max[j], "stream_min");
    }
    if (s.names.empty())
        throw model::InputError(ap.source, 0, "optimize_parameter",
                                "no parameter is marked as optimised (optimize_parameter, optimize_weight): nothing to fit");
    return s;
}

FitSpace narrowed(const FitSpace& space, double fraction) {
    if (!(fraction > 0 && fraction <= 1))
        throw std::invalid_argument("the search box fraction must lie in (0, 1], found " + std::to_string(fraction));
    FitSpace out = space;
    for (std::size_t i = 0; i < space.size(); ++i) {
        const double half = fraction * (space.upper[i] - space.lower[i]);
        const bool inside = space.start[i] >= space.lower[i] && space.start[i] <= space.upper[i];
        out.lower[i] = inside ? std::max(space.lower[i], space.start[i] - half) : space.start[i] - half;
        out.upper[i] = inside ? std::min(space.upper[i], space.start[i] + half) : space.start[i] + half;
    }
    return out;
}

model::AstronomyParameters with_parameters(const model::AstronomyParameters& ap, const std::vector<double>& x) {
    model::AstronomyParameters out = ap;
    model::SearchVector v;
    v.values = x;
    v.source = "the fit's parameter vector";
    model::apply_search_vector(out, v);
    return out;
}

}  // namespace mwsep::fit
