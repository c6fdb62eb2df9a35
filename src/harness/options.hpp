/// @file options.hpp
/// @brief The one command-line option parser of every command: named options only, each declared with its
/// kind; an unknown name, a missing value, or a malformed or out-of-range number is an OptionError that
/// names the command, the option and the text at fault.
#pragma once

#include <climits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

/// A command line the command cannot accept.
class OptionError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// `--help` (or `-h`) given to a command that does not declare it: what() is the command's usage, built from
/// its declared options, for the entry point to print on standard output with exit code 0.
class HelpRequested : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// What follows an option's name.
enum class OptionKind {
    flag,   ///< nothing: `--json`
    value,  ///< one value: `--repeats 5`
    list,   ///< the values up to the next option: `-p 0.5 -1.2 3`
};

/// One option a command accepts.
struct OptionSpec {
    /// The name as typed, with its dashes: `--repeats`, `-a`.
    std::string name;
    /// What follows it.
    OptionKind kind = OptionKind::value;
};

/// The options of one command line, checked against the command's declared options on construction.
class Options {
public:
    /// Parses @p args (without the program and command names) for the command @p command (e.g.
    /// "mwsep bench", used in every message). Throws OptionError for a name not in @p specs, a value
    /// option at the end of the line, or a word that is not an option.
    Options(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs, std::string command);

    /// Whether @p name was given.
    bool has(const std::string& name) const;
    /// The text of value option @p name, or @p fallback if it was not given.
    std::string text(const std::string& name, const std::string& fallback = "") const;
    /// The text of value option @p name; OptionError if it was not given.
    std::string require(const std::string& name) const;
    /// The integer value of @p name, or @p fallback if it was not given. OptionError if the text is not
    /// a whole integer or lies outside [@p min, @p max].
    long long integer(const std::string& name, long long fallback, long long min = LLONG_MIN,
                      long long max = LLONG_MAX) const;
    /// The finite real value of @p name, or @p fallback if it was not given; OptionError if the text is
    /// not a whole finite number.
    double real(const std::string& name, double fallback) const;
    /// The values of list option @p name (empty if it was not given).
    std::vector<std::string> list(const std::string& name) const;
    /// One of @p choices as given for @p name, or @p fallback; OptionError naming the choices otherwise.
    std::string choice(const std::string& name, const std::vector<std::string>& choices,
                       const std::string& fallback) const;
    /// The comma-separated names given for @p name (or @p fallback), each exactly one of @p choices;
    /// OptionError naming the first that is not, and the valid ones. Empty items are errors too.
    std::vector<std::string> choices(const std::string& name, const std::vector<std::string>& choices,
                                     const std::string& fallback) const;
    /// An OptionError for @p name with @p message, prefixed by the command.
    OptionError error(const std::string& name, const std::string& message) const;

private:
    std::string command_;
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> lists_;
};

}  // namespace harness
