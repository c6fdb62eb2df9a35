/// @file options.hpp
/// @brief The one command-line option parser of every command: named options only, each declared with its
/// kind, its description and its default; an unknown name, a missing value, or a malformed or out-of-range
/// number is an OptionError that names the command, the option and the text at fault; `--help` prints the
/// command's help, generated from the same declarations (docs/cli.md gives the conventions).
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

/// One option a command accepts, and what its help says of it.
struct OptionSpec {
    /// The name as typed, with its dashes: `--min-samples`, `-a`.
    std::string name;
    /// What follows it.
    OptionKind kind = OptionKind::value;
    /// What follows it, as the help shows it: `N`, `FILE`, `cpu|cuda` (empty: `VALUE`).
    std::string value = {};
    /// What it does, in a few words.
    std::string help = {};
    /// Its default as the help shows it (`64`, `all cores`, `none`); empty: the help states none.
    std::string fallback = {};
    /// The command cannot run without it: the help says "required".
    bool required = false;
    /// When not empty the option is an old spelling: the parser refuses it with this text (what to write
    /// instead), and the help does not list it.
    std::string replaced_by = {};
    /// The heading of the group of options the help lists it under (empty: "options").
    std::string group = {};
};

/// Declarations of options, as a command lists them.
namespace option {

/// A flag: `--json`.
OptionSpec flag(std::string name, std::string help);
/// An option with one value, @p value as the help names it, and its default @p fallback (as the help shows it).
OptionSpec value(std::string name, std::string value, std::string help, std::string fallback);
/// An option with one value that the command cannot run without.
OptionSpec required(std::string name, std::string value, std::string help);
/// An option with the values up to the next option (`-p 0.5 -1.2 3`).
OptionSpec list(std::string name, std::string value, std::string help, std::string fallback);
/// An old spelling, refused with @p instead (what to write now), e.g. renamed("--repeats", "--min-samples N").
OptionSpec renamed(std::string name, OptionKind kind, std::string instead);
/// `--csv FILE`: @p what the command writes there ("one row per sample"); `-` is standard output (CsvAppender).
OptionSpec csv(std::string what);
/// @p specs with their help listed under the heading @p group.
std::vector<OptionSpec> grouped(std::string group, std::vector<OptionSpec> specs);

}  // namespace option

/// What a command's help says besides its options.
struct CommandHelp {
    /// What follows "usage: <command> " (empty: the required options, then "[options]").
    std::string synopsis = {};
    /// What the command does: one or a few sentences, printed under the usage line.
    std::string about = {};
    /// Printed after the options (examples, notes); may be empty.
    std::string notes = {};
};

/// The help of @p command (e.g. "mwsep run") with @p specs: the usage line, @p about, the options one per
/// line (name and value, description, "(default X)" or "(required)") grouped under their headings, @p notes
/// and the exit status convention.
std::string help_text(const std::string& command, const CommandHelp& about, const std::vector<OptionSpec>& specs);

/// The help lines of @p specs (no heading), as help_text lists them.
std::string option_lines(const std::vector<OptionSpec>& specs);

/// The exit status line every help ends with.
const std::string& exit_status_help();

/// The options of one command line, checked against the command's declared options on construction.
class Options {
public:
    /// Parses @p args (without the program and command names) for the command @p command (e.g.
    /// "mwsep bench", used in every message). Throws OptionError for a name not in @p specs, an old
    /// spelling (OptionSpec::replaced_by), a value option at the end of the line, or a word that is not an
    /// option; HelpRequested with help_text(@p command, @p help, @p specs) for `--help` or `-h` when
    /// @p specs do not declare it.
    Options(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs, std::string command,
            const CommandHelp& help = {});

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
    /// The command the options are for ("mwsep run").
    const std::string& command() const { return command_; }

private:
    std::string command_;
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> lists_;
};

}  // namespace harness
