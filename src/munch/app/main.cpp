// munch: the convolution, rolling-ball and CUDA-limits measurements of Münch (2009), rebuilt.
#include "harness/subcommands.hpp"
#include "munch/app/commands.hpp"

// A GPU command: the function in a CUDA build; in a build without CUDA none (the command is listed all the
// same, and says what it needs when run).
#ifdef MUNCH_WITH_CUDA
#define GPU_COMMAND(f) f
#else
#define GPU_COMMAND(f) nullptr
#endif

int main(int argc, char** argv) {
    using namespace munch::app;
#ifdef MUNCH_WITH_CUDA
    const std::string gpu_build;
#else
    const std::string gpu_build = harness::needs_cuda_build;
#endif
    const harness::Program program{
        "munch",
        "Münch (2009) rebuilt: convolution, the rolling ball, matrix products and the limits of CUDA, each result "
        "checked before it is timed.",
        {{"bench-cpu", command_bench_cpu, "", "time the CPU convolution or rolling ball (sequential, OpenMP), checked"},
         {"matmul", command_matmul, "",
          "time square float matrix products: CPU ikj (sequential, OpenMP), GPU SDK kernel and cuBLAS, checked"},
         {"variants", GPU_COMMAND(command_variants), gpu_build, "list the GPU variants of both computations"},
         {"bench", GPU_COMMAND(command_bench), gpu_build, "time GPU variants on one input, each checked against the CPU first"},
         {"pipeline", GPU_COMMAND(command_pipeline), gpu_build,
          "the convolution with its transfers: per call, pinned, pipelined over streams, as a graph; copy floor"},
         {"launch", GPU_COMMAND(command_launch), gpu_build, "empty-kernel launch cost: synchronised, asynchronous, CUDA graph"},
         {"pattern", GPU_COMMAND(command_pattern), gpu_build, "a number of synchronised launches per evaluation, replayed"},
         {"copy", GPU_COMMAND(command_copy), gpu_build, "copy bandwidth against size: pageable, pinned, mapped, device to device"},
         {"roofline", GPU_COMMAND(command_roofline), gpu_build, "measured float and double peaks and streaming bandwidth"},
         {"ieee", GPU_COMMAND(command_ieee), gpu_build,
          "float division, square root, multiply-add and denormals: four builds against the CPU"}}};
    return harness::run_subcommand(program, argc, argv);
}
