/// @file subcommands.hpp
/// @brief The entry point every study program shares: `program <command> [options]`, one function per
/// command; the same help, `--version`, error format and exit status in each program (docs/cli.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace harness {

/// The exit status of every command of every program.
namespace exit_status {
inline constexpr int done = 0;          ///< the command did its work and every check passed
inline constexpr int check_failed = 1;  ///< a result disagreed with its reference
inline constexpr int usage = 2;         ///< an unknown command or option, a bad or missing value
inline constexpr int not_done = 3;      ///< the work could not be done: an input refused, no GPU, --time-limit reached
}  // namespace exit_status

/// What a command of a build without CUDA says (Subcommand::unavailable), in every program.
/// @hideinitializer
inline const char* const needs_cuda_build =
    "needs a build with CUDA (this one was configured without a CUDA compiler; install the CUDA toolkit and "
    "configure again)";

/// One command of a program.
struct Subcommand {
    std::string name;                                      ///< what argv[1] says
    std::function<int(const std::vector<std::string>&)> run;  ///< takes argv[2..], returns the exit code
    /// When not empty, the command exists but this build cannot run it: "<program> <name>: error:
    /// <unavailable>" on stderr and exit status 3 (e.g. needs_cuda_build).
    std::string unavailable = {};
    /// One line for the program's help: what the command does.
    std::string summary = {};
};

/// A program: its name, what it is, and its commands (the one list its help, its dispatch and the tests
/// that run every command's --help read).
struct Program {
    std::string name;                   ///< "mwsep"
    std::string about;                  ///< one or two sentences under the usage line
    std::vector<Subcommand> commands;   ///< in the order the help lists them
};

/// The help of @p program: usage, about, every command with its summary, the program's own options, the
/// exit status.
std::string program_help(const Program& program);

/// Runs the command that argv[1] names with the rest of argv, under the conventions of docs/cli.md:
/// - no command: the help on stderr, exit status 2; `--help`, `-h` or `help`: the help on stdout, 0;
///   `--version`: version_text() on stdout, 0; an unknown command: "<program>: error: unknown command ..."
///   on stderr, 2;
/// - a command's exit code is returned as it is; `--help` given to it (HelpRequested): its help on stdout, 0;
/// - a command that throws: "<program> <command>: error: <message>" on stderr (the message's own leading
///   "<program> <command>: " or "<program>: ", if any, dropped so that the command is named once) and 2 for
///   an OptionError, 3 for anything else (TimeLimitReached included).
int run_subcommand(const Program& program, int argc, char** argv);

/// The same for a program described by its name, a hand-written @p usage and its commands.
int run_subcommand(const char* program, const char* usage, const std::vector<Subcommand>& commands, int argc,
                   char** argv);

/// "<program> <command>" of the command run_subcommand is running ("" outside one).
const std::string& current_command();

/// The message of an exception as run_subcommand prints it after "<program> <command>: error: ": @p what
/// without a leading "<program> <command>: " or "<program>: ".
std::string error_message(const std::string& program, const std::string& command, const std::string& what);

}  // namespace harness
