#include "harness/subcommands.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "harness/measure.hpp"
#include "harness/options.hpp"
#include "harness/version.hpp"

namespace harness {
namespace {

std::string running;  // current_command()

/// @p text with a leading @p prefix removed, if it has one.
bool drop_prefix(std::string& text, const std::string& prefix) {
    if (text.rfind(prefix, 0) != 0) return false;
    text.erase(0, prefix.size());
    return true;
}

int dispatch(const std::string& program, const std::string& help, const std::vector<Subcommand>& commands, int argc,
             char** argv) {
    if (argc < 2) {
        std::fputs(help.c_str(), stderr);
        return exit_status::usage;
    }
    const std::string name = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    if (name == "--help" || name == "-h" || name == "help") {
        std::fputs(help.c_str(), stdout);
        return exit_status::done;
    }
    if (name == "--version") {
        std::fputs(version_text(program).c_str(), stdout);
        return exit_status::done;
    }
    const auto it = std::find_if(commands.begin(), commands.end(), [&](const Subcommand& c) { return c.name == name; });
    if (it == commands.end()) {
        std::fprintf(stderr, "%s: error: unknown %s '%s' (see '%s --help')\n", program.c_str(),
                     !name.empty() && name[0] == '-' ? "option" : "command", name.c_str(), program.c_str());
        return exit_status::usage;
    }
    const std::string command = program + " " + name;
    if (!it->unavailable.empty()) {
        std::fprintf(stderr, "%s: error: %s\n", command.c_str(), it->unavailable.c_str());
        return exit_status::not_done;
    }
    running = command;
    try {
        const int code = it->run(args);
        running.clear();
        return code;
    } catch (const HelpRequested& h) {
        running.clear();
        std::fputs(h.what(), stdout);
        return exit_status::done;
    } catch (const OptionError& e) {
        running.clear();
        std::fprintf(stderr, "%s: error: %s\n", command.c_str(), error_message(program, command, e.what()).c_str());
        return exit_status::usage;
    } catch (const std::exception& e) {
        running.clear();
        std::fflush(stdout);  // what the command printed comes before its error
        std::fprintf(stderr, "%s: error: %s\n", command.c_str(), error_message(program, command, e.what()).c_str());
        return exit_status::not_done;
    }
}

}  // namespace

std::string error_message(const std::string& program, const std::string& command, const std::string& what) {
    std::string text = what;
    if (!drop_prefix(text, command + ": ")) drop_prefix(text, program + ": ");
    return text;
}

const std::string& current_command() { return running; }

const std::string& detail::HostSampleProgress::current_command_name() { return current_command(); }

std::string program_help(const Program& p) {
    std::string out = "usage: " + p.name + " <command> [options]\n";
    if (!p.about.empty()) out += p.about + (p.about.back() == '\n' ? "" : "\n");
    out += "\ncommands:\n";
    std::size_t width = 0;
    for (const auto& c : p.commands) width = std::max(width, c.name.size());
    for (const auto& c : p.commands) {
        out += "  " + c.name + std::string(width + 2 - c.name.size(), ' ') + c.summary;
        if (!c.unavailable.empty()) out += " (not in this build)";
        out += "\n";
    }
    out += "\noptions:\n"
           "  -h, --help                  print this help and exit\n"
           "  --version                   print the version, the commit and the build's facts, and exit\n"
           "\n'" + p.name + " <command> --help' describes a command's options.\n\n" + exit_status_help();
    return out;
}

int run_subcommand(const Program& program, int argc, char** argv) {
    return dispatch(program.name, program_help(program), program.commands, argc, argv);
}

int run_subcommand(const char* program, const char* usage, const std::vector<Subcommand>& commands, int argc,
                   char** argv) {
    return dispatch(program, usage, commands, argc, argv);
}

}  // namespace harness
