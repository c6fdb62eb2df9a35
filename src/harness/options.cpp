#include "harness/options.hpp"

#include <algorithm>
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

/// The width help text is wrapped to, and the column option descriptions start in.
constexpr std::size_t help_width = 100;
constexpr std::size_t description_column = 30;

/// @p text wrapped into lines of at most help_width characters, the first starting at column @p first
/// (already filled by the caller), the others indented by @p indent spaces; explicit line breaks kept.
std::string wrapped(const std::string& text, std::size_t first, std::size_t indent) {
    std::string out;
    std::size_t column = first;
    std::size_t start = 0;
    bool line_empty = true;
    while (start <= text.size()) {
        const std::size_t end = text.find_first_of(" \n", start);
        const std::string word = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!word.empty()) {
            if (!line_empty && column + 1 + word.size() > help_width) {
                out += "\n" + std::string(indent, ' ');
                column = indent;
                line_empty = true;
            }
            if (!line_empty) out += ' ', ++column;
            out += word;
            column += word.size();
            line_empty = false;
        }
        if (end == std::string::npos) break;
        if (text[end] == '\n') {
            out += "\n" + std::string(indent, ' ');
            column = indent;
            line_empty = true;
        }
        start = end + 1;
    }
    return out;
}

/// The name and value column of @p s: `--threads N`, `-p VALUE ...`.
std::string option_left(const OptionSpec& s) {
    std::string left = s.name;
    if (s.kind == OptionKind::flag) return left;
    left += " " + (s.value.empty() ? std::string("VALUE") : s.value);
    if (s.kind == OptionKind::list) left += " ...";
    return left;
}

/// One option's help: its name and value, then the description with its default or "(required)".
std::string option_line(const std::string& left, const std::string& description) {
    std::string line = "  " + left;
    if (description.empty()) return line + "\n";  // an undocumented option (the help test finds it)
    if (line.size() + 2 > description_column) line += "\n" + std::string(description_column, ' ');
    else line += std::string(description_column - line.size(), ' ');
    return line + wrapped(description, description_column, description_column) + "\n";
}

}  // namespace

namespace option {

OptionSpec flag(std::string name, std::string help) {
    OptionSpec s{std::move(name), OptionKind::flag};
    s.help = std::move(help);
    return s;
}

OptionSpec value(std::string name, std::string value, std::string help, std::string fallback) {
    OptionSpec s{std::move(name), OptionKind::value, std::move(value), std::move(help), std::move(fallback)};
    return s;
}

OptionSpec required(std::string name, std::string value, std::string help) {
    OptionSpec s{std::move(name), OptionKind::value, std::move(value), std::move(help)};
    s.required = true;
    return s;
}

OptionSpec list(std::string name, std::string value, std::string help, std::string fallback) {
    OptionSpec s{std::move(name), OptionKind::list, std::move(value), std::move(help), std::move(fallback)};
    return s;
}

OptionSpec renamed(std::string name, OptionKind kind, std::string instead) {
    OptionSpec s{std::move(name), kind};
    s.replaced_by = std::move(instead);
    return s;
}

OptionSpec csv(std::string what) {
    return value("--csv", "FILE", "append " + what + " to the CSV file FILE (header written if new); - writes the CSV "
                                  "to standard output and the rest of the output to standard error",
                 "none");
}

std::vector<OptionSpec> grouped(std::string group, std::vector<OptionSpec> specs) {
    for (auto& s : specs) s.group = group;
    return specs;
}

}  // namespace option

const std::string& exit_status_help() {
    static const std::string text =
        "exit status: 0 done; 1 a check failed (a result disagreed with its reference); 2 a usage error\n"
        "(an unknown command or option, a bad or missing value); 3 the work could not be done (an input\n"
        "refused, no GPU, --time-limit reached). docs/cli.md gives the conventions of the four programs.\n";
    return text;
}

std::string option_lines(const std::vector<OptionSpec>& specs) {
    std::string out;
    for (const auto& s : specs) {
        if (!s.replaced_by.empty()) continue;
        std::string description = s.help;
        if (s.required) description += " (required)";
        else if (!s.fallback.empty()) description += " (default: " + s.fallback + ")";
        out += option_line(option_left(s), description);
    }
    return out;
}

std::string help_text(const std::string& command, const CommandHelp& about, const std::vector<OptionSpec>& specs) {
    std::string synopsis = about.synopsis;
    if (synopsis.empty()) {
        for (const auto& s : specs)
            if (s.required && s.replaced_by.empty()) synopsis += option_left(s) + " ";
        synopsis += "[options]";
    }
    std::string out = "usage: " + command + " " + synopsis + "\n";
    if (!about.about.empty()) out += wrapped(about.about, 0, 0) + "\n";
    // The groups in the order of their first option; the command's own options ("options") first.
    std::vector<std::string> groups{""};
    for (const auto& s : specs)
        if (s.replaced_by.empty() && std::find(groups.begin(), groups.end(), s.group) == groups.end())
            groups.push_back(s.group);
    for (const auto& g : groups) {
        out += "\n" + (g.empty() ? std::string("options") : g) + ":\n";
        std::vector<OptionSpec> in_group;
        for (const auto& s : specs)
            if (s.group == g) in_group.push_back(s);
        out += option_lines(in_group);
        if (g.empty()) out += option_line("-h, --help", "print this help and exit");
    }
    if (!about.notes.empty()) out += "\n" + about.notes + (about.notes.back() == '\n' ? "" : "\n");
    return out + "\n" + exit_status_help();
}

Options::Options(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs, std::string command,
                 const CommandHelp& help)
    : command_(std::move(command)) {
    std::map<std::string, OptionKind> known;
    std::map<std::string, std::string> replaced;
    for (const auto& s : specs) {
        known[s.name] = s.kind;
        if (!s.replaced_by.empty()) replaced[s.name] = s.replaced_by;
    }
    // `--help` anywhere wins over every other word, right or wrong: the help is what was asked for.
    if (!known.count("--help"))
        for (const auto& a : args)
            if (a == "--help" || a == "-h") throw HelpRequested(help_text(command_, help, specs));
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto it = known.find(a);
        if (const auto old = replaced.find(a); old != replaced.end())
            throw OptionError(command_ + ": " + a + " is an old spelling: write " + old->second);
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
