// mwsep: the MilkyWay@Home separation likelihood, CPU and CUDA. One program, several subcommands.
#include <cstdio>
#include <exception>
#include <string>

#include "mwsep/app/commands.hpp"
#include "mwsep/app/fit_command.hpp"
#include "mwsep/model/input_error.hpp"

namespace {

void usage(std::FILE* out) {
    std::fputs(
        "usage: mwsep <command> [options]\n"
        "\n"
        "commands:\n"
        "  run        evaluate the likelihood of a work unit and a star catalogue\n"
        "  generate   sample a synthetic star catalogue from a work unit's model\n"
        "  bench-cpu  measure quadrature points per second of the CPU integrators\n"
        "  skipping   count the stream terms the rigorous bound skips\n"
        "  variants   list the CUDA kernel variants with registers, spills and occupancy\n"
        "  bench      time CUDA kernel variants (CUDA events, repeats) and check each run\n"
        "  fit        fit the work unit's optimised parameters to a star catalogue\n"
        "\n"
        "'mwsep <command> --help' describes each command's options.\n",
        out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string command = argv[1];
    const mwsep::app::Args args(argv + 2, argv + argc);
    try {
#if defined(MWSEP_WITH_BOINC)
        if (command == "run") return mwsep::app::command_run_boinc(args);
#else
        if (command == "run") return mwsep::app::command_run(args);
#endif
        if (command == "generate") return mwsep::app::command_generate(args);
        if (command == "bench-cpu") return mwsep::app::command_bench_cpu(args);
        if (command == "skipping") return mwsep::app::command_skipping(args);
        if (command == "variants") return mwsep::app::command_variants(args);
        if (command == "bench") return mwsep::app::command_bench(args);
        if (command == "fit") return mwsep::app::command_fit(args);
        if (command == "--help" || command == "-h" || command == "help") {
            usage(stdout);
            return 0;
        }
        std::fprintf(stderr, "mwsep: unknown command '%s'\n", command.c_str());
        usage(stderr);
        return 2;
    } catch (const mwsep::model::InputError& e) {
        std::fprintf(stderr, "mwsep: error: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mwsep: error: %s\n", e.what());
        return 1;
    }
}
