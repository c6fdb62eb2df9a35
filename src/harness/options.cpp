#include "harness/options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "harness/excerpt.hpp"

namespace harness {
namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

Options::Options(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs, std::string command)
    : command_(std::move(command)) {
    std::map<std::string, OptionKind> known;
    for (const auto& s : specs) known[s.name] = s.kind;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto it = known.find(a);
        if (it == known.end() && (a == "--help" || a == "-h")) {
            // A command that declares no help of its own still answers `<command> --help`: its options.
            std::string text = "usage: " + command_ + (specs.empty() ? "" : " [options]") + "\n";
            if (!specs.empty()) text += "options:\n";
            for (const auto& sp : specs)
                text += "  " + sp.name +
                        (sp.kind == OptionKind::value ? " VALUE" : sp.kind == OptionKind::list ? " VALUE..." : "") + "\n";
            throw HelpRequested(text);
        }
        if (it == known.end()) {
            const bool looks_like_option = !a.empty() && a[0] == '-';
            throw OptionError(command_ + ": " + (looks_like_option ? "unknown option '" : "unexpected argument '") + a +
                              "' (see --help)");
        }
        switch (it->second) {
            case OptionKind::flag:
                values_[a] = "";
                break;
            case OptionKind::value:
                if (i + 1 >= args.size()) throw error(a, "needs a value");
                // Given twice, one value would silently win: refused, so that the command line says one thing.
                if (values_.count(a)) throw error(a, "is given twice (" + values_[a] + " and " + args[i + 1] + ")");
                values_[a] = args[++i];
                break;
            case OptionKind::list: {
                // Values run until the next option; negative numbers are values, not options.
                std::vector<std::string> values;
                while (i + 1 < args.size() && !(args[i + 1].rfind("--", 0) == 0 || known.count(args[i + 1])))
                    values.push_back(args[++i]);
                values_[a] = "";
                lists_[a] = std::move(values);
                break;
            }
        }
    }
}

OptionError Options::error(const std::string& name, const std::string& message) const {
    return OptionError(command_ + ": " + name + " " + message);
}

bool Options::has(const std::string& name) const { return values_.count(name) != 0; }

std::string Options::text(const std::string& name, const std::string& fallback) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
}

std::string Options::require(const std::string& name) const {
    if (!has(name)) throw OptionError(command_ + ": missing required option " + name + " (see --help)");
    return text(name);
}

long long Options::integer(const std::string& name, long long fallback, long long min, long long max) const {
    if (!has(name)) return fallback;
    const std::string t = text(name);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    // strtoll skips leading blanks and accepts a sign: the whole text must be the number.
    const bool whole = !t.empty() && end == t.c_str() + t.size() && t.find_first_of(" \t\n") == std::string::npos;
    if (!whole) throw error(name, "expects an integer, found " + quoted(t));
    if (errno == ERANGE || v < min || v > max) {
        // A bound that only keeps the value within its type (INT_MAX for an int option) is not worth naming.
        std::string range;
        if (max == LLONG_MAX || max == INT_MAX) range = "at least " + std::to_string(min);
        else if (min == LLONG_MIN) range = "at most " + std::to_string(max);
        else range = "between " + std::to_string(min) + " and " + std::to_string(max);
        throw error(name, "must be " + range + ", found " + quoted(t));
    }
    return v;
}

double Options::real(const std::string& name, double fallback) const {
    if (!has(name)) return fallback;
    const std::string t = text(name);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(t.c_str(), &end);
    const bool whole = !t.empty() && end == t.c_str() + t.size() && t.find_first_of(" \t\n") == std::string::npos;
    if (!whole || errno == ERANGE || !std::isfinite(v)) throw error(name, "expects a finite number, found " + quoted(t));
    return v;
}

std::vector<std::string> Options::list(const std::string& name) const {
    const auto it = lists_.find(name);
    return it == lists_.end() ? std::vector<std::string>{} : it->second;
}

std::string Options::choice(const std::string& name, const std::vector<std::string>& choices,
                            const std::string& fallback) const {
    const std::string t = text(name, fallback);
    for (const auto& c : choices)
        if (c == t) return t;
    throw error(name, "must be one of " + joined(choices) + ", found " + quoted(t));
}

std::vector<std::string> Options::choices(const std::string& name, const std::vector<std::string>& choices,
                                          const std::string& fallback) const {
    const std::string t = text(name, fallback);
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = t.find(',', start);
        const std::string item = t.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        bool valid = false;
        for (const auto& c : choices) valid = valid || c == item;
        if (!valid) throw error(name, "names " + quoted(item) + ", which is not one of " + joined(choices));
        out.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace harness
