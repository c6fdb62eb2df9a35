#include "mwsep/fit/fit_checkpoint.hpp"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "mwsep/resume/checkpoint.hpp"

namespace mwsep::fit {
namespace {

constexpr std::string_view header = "mwsep-fit-checkpoint 3";
/// The algorithm's archive: pagmo's CMA-ES state is a few dense matrices of the dimension (the fit has
/// at most a few dozen parameters), so 64 MiB is far beyond any real one.
constexpr std::size_t max_algorithm_bytes = 64u << 20;
/// An identity line's value (hashes, names, numbers): far more than any real one needs.
constexpr std::size_t max_identity_items = 64, max_identity_value = 4096;

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

/// A cursor over the checkpoint's lines; every failure names the file and the line.
class Reader {
public:
    Reader(const std::string& text, std::size_t at, std::size_t line, const std::string& name)
        : text_(text), at_(at), line_(line), name_(name) {}

    std::runtime_error error(const std::string& what) const {
        return std::runtime_error(name_ + ": line " + std::to_string(line_) + ": " + what);
    }
    /// The next line without its newline; an error at the end of the file.
    std::string_view next(const char* expected) {
        if (at_ >= text_.size()) throw std::runtime_error(name_ + ": ends early: expected " + expected + " (truncated?)");
        const std::size_t end = text_.find('\n', at_);
        if (end == std::string::npos) throw std::runtime_error(name_ + ": the last line has no end: expected " + expected);
        std::string_view l(text_.data() + at_, end - at_);
        at_ = end + 1;
        ++line_;
        return l;
    }
    /// Whether the next line begins with @p prefix.
    bool next_starts_with(std::string_view prefix) const {
        return text_.compare(at_, prefix.size(), prefix.data(), prefix.size()) == 0;
    }
    std::size_t at() const { return at_; }

private:
    const std::string& text_;
    std::size_t at_, line_;
    const std::string& name_;
};

/// Splits @p l at single spaces; an empty field (two spaces, a leading or trailing one) is an error.
std::vector<std::string_view> fields(std::string_view l, const Reader& r) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t sp = l.find(' ', start);
        const std::string_view f = l.substr(start, sp == std::string_view::npos ? std::string_view::npos : sp - start);
        if (f.empty()) throw r.error("an empty field (expected single spaces between values)");
        out.push_back(f);
        if (sp == std::string_view::npos) return out;
        start = sp + 1;
    }
}

/// A whole unsigned decimal integer within [0, @p max].
unsigned long long count(std::string_view f, unsigned long long max, const char* what, const Reader& r) {
    if (f.empty() || f.size() > 20 || f.find_first_not_of("0123456789") != std::string_view::npos)
        throw r.error(std::string(what) + ": expected a whole number 0 or more, found '" + std::string(f.substr(0, 40)) + "'");
    errno = 0;
    const std::string s(f);
    const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE || v > max)
        throw r.error(std::string(what) + ": expected at most " + std::to_string(max) + ", found " + s);
    return v;
}

/// A whole finite real number.
double real(std::string_view f, const char* what, const Reader& r) {
    const std::string s(f);
    if (s.empty() || s.size() > 64) throw r.error(std::string(what) + ": expected a number");
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) throw r.error(std::string(what) + ": expected a number, found '" + s + "'");
    if (!std::isfinite(v)) throw r.error(std::string(what) + ": expected a finite number, found '" + s + "'");
    return v;
}

/// A line "KEY v1 v2 ...": the key checked, the values returned.
std::vector<std::string_view> keyed(Reader& r, const char* key, std::size_t n_values) {
    const std::string_view l = r.next(key);
    auto f = fields(l, r);
    if (f[0] != key) throw r.error(std::string("expected '") + key + "', found '" + std::string(f[0].substr(0, 40)) + "'");
    if (f.size() != n_values + 1)
        throw r.error(std::string("'") + key + "' needs " + std::to_string(n_values) + " values, found " +
                      std::to_string(f.size() - 1));
    f.erase(f.begin());
    return f;
}

/// A fitness and a point of the unit box: "KEY f u1 ... ud".
void point(Reader& r, const char* key, std::size_t dimension, double worst, double& f, std::vector<double>& u) {
    const auto v = keyed(r, key, dimension + 1);
    f = real(v[0], "fitness", r);
    if (f > worst) throw r.error("fitness " + std::string(v[0]) + " is worse than the penalty of an invalid candidate");
    u.resize(dimension);
    for (std::size_t i = 0; i < dimension; ++i) {
        u[i] = real(v[1 + i], "coordinate", r);
        if (!(u[i] >= 0 && u[i] <= 1))
            throw r.error("coordinate " + std::to_string(i + 1) + " is " + std::string(v[1 + i]) +
                          ": expected a point of the unit box [0, 1]");
    }
}

}  // namespace

std::string format_fit_checkpoint(const FitCheckpointData& c) {
    std::string body;
    for (const auto& [key, value] : c.identity) body += "for " + key + " " + value + "\n";
    body += "generation " + std::to_string(c.generation) + "\n";
    body += "evaluations " + std::to_string(c.evaluations) + " " + std::to_string(c.invalid) + "\n";
    const std::size_t dimension = c.champion_x.size();
    body += "population " + std::to_string(c.x.size()) + " " + std::to_string(dimension) + "\n";
    const auto put_point = [&](const char* key, double f, const std::vector<double>& u) {
        body += key;
        body += " " + number(f);
        for (double v : u) body += " " + number(v);
        body += "\n";
    };
    for (std::size_t i = 0; i < c.x.size(); ++i) put_point("x", c.f[i], c.x[i]);
    put_point("champion", c.champion_f, c.champion_x);
    body += "history " + std::to_string(c.history.size()) + "\n";
    for (const auto& h : c.history)
        body += "h " + number(h[0]) + " " + number(h[1]) + " " + number(h[2]) + " " + number(h[3]) + "\n";
    body += "algorithm " + std::to_string(c.algorithm.size()) + "\n";
    body += c.algorithm;
    char sum[40];
    std::snprintf(sum, sizeof sum, "%016" PRIx64, resume::fnv1a(body.data(), body.size()));
    return std::string(header) + "\nchecksum " + sum + "\n" + body;
}

FitCheckpointData parse_fit_checkpoint(const std::string& text, const std::string& name, const FitCheckpointShape& shape,
                                       bool verify_checksum) {
    Reader r(text, 0, 0, name);
    if (text.substr(0, text.find('\n')) != header)
        throw std::runtime_error(name + ": line 1: not a fit checkpoint of this version (expected '" + std::string(header) +
                                 "'; a checkpoint of an older build cannot be resumed: start afresh without --resume)");
    r.next("the header");
    const auto sum = keyed(r, "checksum", 1);
    if (sum[0].size() != 16 || sum[0].find_first_not_of("0123456789abcdef") != std::string_view::npos)
        throw r.error("the checksum: expected 16 hexadecimal digits");
    if (verify_checksum) {
        char mine[40];
        std::snprintf(mine, sizeof mine, "%016" PRIx64, resume::fnv1a(text.data() + r.at(), text.size() - r.at()));
        if (sum[0] != mine) throw std::runtime_error(name + ": its checksum does not match: the file is damaged");
    }
    FitCheckpointData c;
    // The identity lines, up to the first line that is not one.
    while (r.next_starts_with("for ")) {
        const std::string_view l = r.next("'for KEY VALUE'");
        if (c.identity.size() >= max_identity_items) throw r.error("too many 'for' lines");
        const std::string_view rest = l.substr(4);
        const std::size_t sp = rest.find(' ');
        if (sp == 0 || sp == std::string_view::npos || rest.size() - sp - 1 > max_identity_value)
            throw r.error("expected 'for KEY VALUE'");
        c.identity.emplace_back(std::string(rest.substr(0, sp)), std::string(rest.substr(sp + 1)));
    }
    c.generation = static_cast<unsigned>(count(keyed(r, "generation", 1)[0], shape.generations, "generation", r));
    const auto ev = keyed(r, "evaluations", 2);
    constexpr unsigned long long most = 1ull << 62;
    c.evaluations = static_cast<long long>(count(ev[0], most, "evaluations", r));
    c.invalid = static_cast<long long>(count(ev[1], static_cast<unsigned long long>(c.evaluations), "invalid evaluations", r));
    const auto pop = keyed(r, "population", 2);
    const std::size_t n = count(pop[0], shape.population, "population", r);
    const std::size_t d = count(pop[1], shape.dimension, "dimension", r);
    if ((shape.fewer_members ? n < 1 : n != shape.population) || d != shape.dimension)
        throw r.error("a population of " + std::to_string(n) + " x " + std::to_string(d) + " where this fit has " +
                      std::to_string(shape.population) + " x " + std::to_string(shape.dimension));
    c.x.resize(n);
    c.f.resize(n);
    for (std::size_t i = 0; i < n; ++i) point(r, "x", d, shape.worst_fitness, c.f[i], c.x[i]);
    point(r, "champion", d, shape.worst_fitness, c.champion_f, c.champion_x);
    for (double f : c.f)
        if (f < c.champion_f) throw r.error("a candidate of the population is better than the champion");
    const std::size_t h = count(keyed(r, "history", 1)[0], static_cast<unsigned long long>(c.generation) + 1, "history", r);
    c.history.reserve(h);
    for (std::size_t i = 0; i < h; ++i) {
        const auto v = keyed(r, "h", 4);
        std::vector<double> rec(4);
        for (int k = 0; k < 4; ++k) rec[k] = real(v[k], "a generation's record", r);
        if (rec[0] < 0 || rec[0] > c.generation || rec[0] != std::floor(rec[0]) || rec[1] < 0 || rec[3] < 0 ||
            (i > 0 && rec[0] <= c.history.back()[0]))
            throw r.error("a generation's record out of order or out of range");
        c.history.push_back(std::move(rec));
    }
    const std::size_t bytes = count(keyed(r, "algorithm", 1)[0], max_algorithm_bytes, "algorithm bytes", r);
    if (text.size() - r.at() != bytes)
        throw r.error("the algorithm's state: " + std::to_string(bytes) + " bytes declared, " +
                      std::to_string(text.size() - r.at()) + " present");
    c.algorithm = text.substr(r.at());
    return c;
}

FitCheckpointData read_fit_checkpoint(const std::string& path, const FitCheckpointShape& shape) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open the checkpoint for reading");
    // The largest file this shape can need: every line at its longest, plus the algorithm's state.
    const std::size_t point_bytes = 32 + 26 * (shape.dimension + 1);
    const std::size_t limit = (1u << 20) + max_identity_items * (max_identity_value + 32) +
                              (shape.population + 1) * point_bytes + (std::size_t(shape.generations) + 2) * 120 +
                              max_algorithm_bytes;
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > limit)
            throw std::runtime_error(path + ": is larger than any checkpoint of this fit can be (" + std::to_string(limit) +
                                     " bytes): not a checkpoint of this fit");
    }
    if (in.bad()) throw std::runtime_error(path + ": cannot read the checkpoint");
    return parse_fit_checkpoint(text, path, shape);
}

std::string identity_difference(const std::vector<IdentityItem>& theirs, const std::vector<IdentityItem>& mine) {
    for (const auto& [key, value] : mine) {
        const IdentityItem* found = nullptr;
        for (const auto& t : theirs)
            if (t.first == key) found = &t;
        if (!found) return key + " (not recorded in the checkpoint; this fit: " + value + ")";
        if (found->second != value) return key + " (checkpoint: " + found->second + ", this fit: " + value + ")";
    }
    if (theirs.size() != mine.size()) return "the list of what it belongs to";
    return {};
}

}  // namespace mwsep::fit
