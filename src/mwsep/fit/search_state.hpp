/// @file search_state.hpp
/// @brief What the fit's own searches (fit/generation_search.hpp) share inside: random numbers that are the same on
/// every platform, numbers written so that they read back to the bit, and a strict reader of the saved state's
/// text (one `key value ...` line per item; every failure names the line and what was expected).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mwsep::fit::search_state {

/// Below every likelihood.
inline constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

/// A likelihood for comparisons: NaN (no likelihood) ranks below every number.
inline double ranked(double l) { return std::isnan(l) ? minus_infinity : l; }

/// Uniform double in [0, 1) from 53 random bits: the same on every platform (unlike std distributions).
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
/// Uniform index in [0, k).
inline std::size_t uniform_index(std::mt19937_64& rng, std::size_t k) {
    return std::min(k - 1, static_cast<std::size_t>(uniform01(rng) * static_cast<double>(k)));
}

/// @p v in 17 significant digits: reads back to the same bits.
inline std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

/// Each of @p v as number() writes it, each after a space.
inline std::string numbers(const std::vector<double>& v) {
    std::string out;
    for (const double x : v) out += " " + number(x);
    return out;
}

/// Reads the state's lines in order; every failure says which line and what was expected.
class StateReader {
public:
    /// The lines of @p text, whose first must be @p header (the search's name and the format's version).
    StateReader(const std::string& text, std::string_view header) {
        if (text.size() > (8u << 20)) throw std::runtime_error("the algorithm state is larger than any search writes");
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) lines_.push_back(line);
        if (lines_.empty() || lines_[0] != header)
            throw std::runtime_error("the algorithm state does not begin with '" + std::string(header) + "'");
        at_ = 1;
    }
    /// The next line's fields after @p key (which it must begin with).
    std::vector<std::string> next(const std::string& key) {
        if (at_ >= lines_.size()) throw error("ends early: expected '" + key + "'");
        const std::string& line = lines_[at_++];
        std::vector<std::string> f;
        std::istringstream in(line);
        for (std::string w; in >> w;) f.push_back(w);
        if (f.empty() || f[0] != key) throw error("expected '" + key + "'");
        f.erase(f.begin());
        return f;
    }
    /// The rest of the line after @p key, as written (free text).
    std::string text(const std::string& key) {
        if (at_ >= lines_.size()) throw error("ends early: expected '" + key + "'");
        const std::string& line = lines_[at_++];
        if (line.rfind(key, 0) != 0) throw error("expected '" + key + "'");
        return line.size() > key.size() ? line.substr(key.size() + 1) : std::string();
    }
    /// Refuses lines after the last one read.
    void end() const {
        if (at_ != lines_.size()) throw error("holds more than this search writes");
    }
    /// An error about the line last read.
    std::runtime_error error(const std::string& what) const {
        return std::runtime_error("algorithm state, line " + std::to_string(at_) + ": " + what);
    }
    /// @p f as a number (finite unless @p finite is false).
    double real(const std::string& f, bool finite = true) const {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(f.c_str(), &end);
        if (f.empty() || end != f.c_str() + f.size() || (finite && !std::isfinite(v)))
            throw error("expected a" + std::string(finite ? " finite" : "") + " number, found '" + f.substr(0, 40) + "'");
        return v;
    }
    /// @p f as a whole number within [@p min, @p max].
    long long whole(const std::string& f, long long min, long long max) const {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(f.c_str(), &end, 10);
        if (f.empty() || end != f.c_str() + f.size() || errno != 0 || v < min || v > max)
            throw error("expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ", found '" +
                        f.substr(0, 40) + "'");
        return v;
    }
    /// Exactly @p n finite numbers, each within [lo, hi].
    std::vector<double> reals(const std::vector<std::string>& f, std::size_t n, double lo, double hi) const {
        if (f.size() != n) throw error("expected " + std::to_string(n) + " values, found " + std::to_string(f.size()));
        std::vector<double> v;
        for (const auto& s : f) {
            v.push_back(real(s));
            if (v.back() < lo || v.back() > hi) throw error("a value outside [" + number(lo) + ", " + number(hi) + "]");
        }
        return v;
    }
    /// A random engine from the fields engine_text() wrote.
    std::mt19937_64 engine(const std::vector<std::string>& f) const {
        std::string words;
        for (const auto& w : f) {
            if (w.find_first_not_of("0123456789") != std::string::npos) throw error("the random engine's state is not numbers");
            words += w + " ";
        }
        std::istringstream in(words);
        std::mt19937_64 rng;
        in >> rng;
        if (in.fail()) throw error("the random engine's state does not read back");
        return rng;
    }

private:
    std::vector<std::string> lines_;
    std::size_t at_ = 0;
};

/// The random engine's whole state as text (StateReader::engine() reads it back).
inline std::string engine_text(const std::mt19937_64& rng) {
    std::ostringstream out;
    out << rng;
    return out.str();
}

/// The likelihood of a member as saved: the checkpoint keeps fitnesses (-L), finite by construction.
inline void check_members(const std::vector<std::pair<std::vector<double>, double>>& m, std::size_t n, std::size_t most) {
    if (m.empty() || m.size() > most)
        throw std::runtime_error("the checkpoint holds " + std::to_string(m.size()) + " points; this search keeps 1 to " +
                                 std::to_string(most));
    for (const auto& [x, l] : m)
        if (x.size() != n || !std::isfinite(l)) throw std::runtime_error("a saved point of another dimension or without a likelihood");
}

}  // namespace mwsep::fit::search_state
