/// @file subcommands.hpp
/// @brief The entry point every study program shares: `program <command> [options]`, one function per
/// command, the same usage, help, unknown-command and error handling in each program.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace harness {

/// One command of a program.
struct Subcommand {
    std::string name;                                      ///< what argv[1] says
    std::function<int(const std::vector<std::string>&)> run;  ///< takes argv[2..], returns the exit code
    /// When not empty, the command exists but this build cannot run it: "<program>: '<name>' <unavailable>"
    /// on stderr and exit code 2 (e.g. "needs the CUDA build ...").
    std::string unavailable = {};
};

/// Runs the command that argv[1] names with the rest of argv. Without a command, or with one not in
/// @p commands: @p usage on stderr (after "<program>: unknown command '<name>'") and 2; `help`, `-h` or
/// `--help`: @p usage on stdout and 0; a command that throws: "<program>: error: <what>" on stderr and 1.
int run_subcommand(const char* program, const char* usage, const std::vector<Subcommand>& commands, int argc,
                   char** argv);

}  // namespace harness
