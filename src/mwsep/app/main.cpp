// mwsep: the MilkyWay@Home separation likelihood, CPU and CUDA. One program, several subcommands.
#include "harness/subcommands.hpp"
#include "mwsep/app/commands.hpp"
#include "mwsep/app/evaluate.hpp"
#include "mwsep/app/fit_command.hpp"
#include "mwsep/app/separate_command.hpp"
#if defined(MWSEP_WITH_CUDA)
#include "mwsep/bench/commands.hpp"
#endif

int main(int argc, char** argv) {
    using namespace mwsep::app;
    note_main_entry();  // the start of the process's own time line (`mwsep run --json` reports it)
#if defined(MWSEP_WITH_BOINC)
    const auto run = [](const Args& args) { return command_run_boinc(args); };
#else
    const auto run = [](const Args& args) { return command_run(args); };
#endif
#if defined(MWSEP_WITH_CUDA)
    const std::string gpu_build;
#else
    const std::string gpu_build = harness::needs_cuda_build;
#endif
    const harness::Program program{
        "mwsep",
        "The MilkyWay@Home separation likelihood (Waters 2010), on the CPU and in CUDA.",
        {{"run", run, "", "evaluate the likelihood of a work unit and a star catalogue"},
         {"generate", command_generate, "", "sample a synthetic star catalogue from a work unit's model"},
         {"bench-cpu", command_bench_cpu, "", "time the CPU integrators: quadrature points per second and per core"},
         {"skipping", command_skipping, "", "count the stream terms the rigorous bound skips (CSV)"},
         {"variants", command_variants, gpu_build, "list the CUDA kernel variants with registers, spills and occupancy"},
         {"bench", command_bench, gpu_build, "time CUDA kernel variants, each evaluation checked against the CPU"},
         {"fit", command_fit, fit_unavailable(), "fit the work unit's optimised parameters to a star catalogue"},
         {"separate", command_separate, "", "each star's probability of belonging to the background and to each stream"},
#if defined(MWSEP_WITH_CUDA)
         {"exp-throughput", mwsep::bench::command_exp_throughput, "",
          "time the GPU's double-precision exponentials (the kernels' candidates), each checked"},
         {"hardware-micro", mwsep::bench::command_hardware_micro, "",
          "microbenchmarks of the GPU behaviour the thesis explains: latency, constant cache, coalescing, banks"}}};
#else
         {"exp-throughput", nullptr, gpu_build,
          "time the GPU's double-precision exponentials (the kernels' candidates), each checked"},
         {"hardware-micro", nullptr, gpu_build,
          "microbenchmarks of the GPU behaviour the thesis explains: latency, constant cache, coalescing, banks"}}};
#endif
    return harness::run_subcommand(program, argc, argv);
}
