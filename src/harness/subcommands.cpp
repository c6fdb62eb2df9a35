#include "harness/subcommands.hpp"

#include <cstdio>
#include <exception>

#include "harness/options.hpp"

namespace harness {

int run_subcommand(const char* program, const char* usage, const std::vector<Subcommand>& commands, int argc,
                   char** argv) {
    if (argc < 2) {
        std::fputs(usage, stderr);
        return 2;
    }
    const std::string name = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    if (name == "--help" || name == "-h" || name == "help") {
        std::fputs(usage, stdout);
        return 0;
    }
    for (const Subcommand& c : commands) {
        if (c.name != name) continue;
        if (!c.unavailable.empty()) {
            std::fprintf(stderr, "%s: '%s' %s\n", program, name.c_str(), c.unavailable.c_str());
            return 2;
        }
        try {
            return c.run(args);
        } catch (const HelpRequested& help) {
            std::fputs(help.what(), stdout);
            return 0;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: error: %s\n", program, e.what());
            return 1;
        }
    }
    std::fprintf(stderr, "%s: unknown command '%s'\n", program, name.c_str());
    std::fputs(usage, stderr);
    return 2;
}

}  // namespace harness
