/// @file ulp.hpp
/// @brief The distance between two floats in units in the last place.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace munch {

/// How many representable floats lie between @p a and @p b (0 when equal, +0 and -0 equal); -1 when
/// either is a NaN.
inline long long ulp_distance(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return -1;
    const auto ordered = [](float x) {
        std::int32_t i;
        std::memcpy(&i, &x, sizeof i);
        return i < 0 ? static_cast<long long>(INT32_MIN) - i : static_cast<long long>(i);
    };
    const long long d = ordered(a) - ordered(b);
    return d < 0 ? -d : d;
}

}  // namespace munch
