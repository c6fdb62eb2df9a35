// mwsep: the MilkyWay@Home separation likelihood, CPU and CUDA. One program, several subcommands.
#include "harness/subcommands.hpp"
#include "mwsep/app/commands.hpp"
#include "mwsep/app/evaluate.hpp"
#include "mwsep/app/fit_command.hpp"
#include "mwsep/app/separate_command.hpp"

namespace {

const char* usage =
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
    "  separate   each star's probability of belonging to the background and to each stream\n"
    "\n"
    "'mwsep <command> --help' describes each command's options.\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace mwsep::app;
    note_main_entry();  // the start of the process's own time line (`mwsep run --json` reports it)
#if defined(MWSEP_WITH_BOINC)
    const auto run = [](const Args& args) { return command_run_boinc(args); };
#else
    const auto run = [](const Args& args) { return command_run(args); };
#endif
    return harness::run_subcommand("mwsep", usage,
                                   {{"run", run}, {"generate", command_generate}, {"bench-cpu", command_bench_cpu},
                                    {"skipping", command_skipping}, {"variants", command_variants},
                                    {"bench", command_bench}, {"fit", command_fit},
                                    {"separate", command_separate}},
                                   argc, argv);
}
