#include "munch/inputs.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace munch {

namespace {

// SplitMix64: a fixed, portable sequence (std's distributions differ between library versions).
std::uint64_t next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double unit(std::uint64_t& state) { return static_cast<double>(next(state) >> 11) * 0x1.0p-53; }

}  // namespace

std::vector<float> small_integers(std::size_t n, int magnitude, std::uint64_t seed) {
    std::vector<float> v(n);
    std::uint64_t s = seed;
    const auto span = static_cast<std::uint64_t>(2 * magnitude + 1);
    for (auto& x : v) x = static_cast<float>(static_cast<int>(next(s) % span) - magnitude);
    return v;
}

std::vector<float> convolution_signal(std::size_t n, std::uint64_t seed) {
    return small_integers(n, signal_magnitude, seed);
}

std::vector<float> convolution_filter(std::size_t w, std::uint64_t seed) {
    if (w == 0 || w > widest_exact_filter)
        throw std::invalid_argument("convolution filter width " + std::to_string(w) + " outside [1, " +
                                    std::to_string(widest_exact_filter) + "] (the range in which float sums stay exact)");
    auto f = small_integers(w, filter_magnitude, seed);
    if (w > 1 && f.front() == f.back()) f.back() = f.front() == 1.0f ? 2.0f : 1.0f;  // never symmetric
    return f;
}

std::vector<float> baseline_signal(std::size_t n, std::uint64_t seed) {
    std::vector<float> v(n);
    std::uint64_t s = seed;
    const double length = static_cast<double>(n > 1 ? n - 1 : 1);
    for (std::size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) / length;
        const double drift = 10.0 + 5.0 * t + 3.0 * std::sin(6.283185307179586 * t);
        const double peaks = 40.0 * std::exp(-std::pow((t - 0.3) / 0.01, 2)) + 25.0 * std::exp(-std::pow((t - 0.7) / 0.02, 2));
        v[i] = static_cast<float>(drift + peaks + (unit(s) - 0.5));
    }
    return v;
}

std::vector<float> ball_profile(std::size_t w, float height_per_sample) {
    if (w == 0 || w % 2 == 0)
        throw std::invalid_argument("rolling-ball width " + std::to_string(w) + " must be odd and positive");
    const double r = static_cast<double>(w - 1) / 2;
    std::vector<float> ball(w);
    for (std::size_t k = 0; k < w; ++k) {
        const double j = static_cast<double>(k) - r;
        ball[k] = static_cast<float>(height_per_sample * std::sqrt(r * r - j * j));
    }
    return ball;
}

}  // namespace munch
