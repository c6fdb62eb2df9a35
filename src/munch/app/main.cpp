// munch: the convolution, rolling-ball and CUDA-limits measurements of Münch (2009), rebuilt.
#include "harness/subcommands.hpp"
#include "munch/app/commands.hpp"

namespace {

const char* usage =
    "usage: munch <command> [options]\n"
    "\n"
    "commands:\n"
    "  bench-cpu  time the CPU convolution or rolling ball (sequential, OpenMP), checked\n"
    "  matmul     time square float matrix products: CPU ikj (sequential, OpenMP), GPU SDK kernel and cuBLAS, checked\n"
    "  variants   list the GPU variants\n"
    "  bench      time GPU variants on one input, each checked against the CPU first\n"
    "  pipeline   the convolution with its transfers: per call, pinned, pipelined over streams, as a graph; copy floor\n"
    "  launch     empty-kernel launch cost: synchronised, asynchronous, CUDA graph\n"
    "  pattern    a number of synchronised launches per evaluation, replayed\n"
    "  copy       copy bandwidth against size: pageable, pinned, mapped, device to device\n"
    "  roofline   measured float and double peaks and streaming bandwidth\n"
    "  ieee       float division, square root, multiply-add and denormals: four builds against the CPU\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace munch::app;
    std::vector<harness::Subcommand> commands = {{"bench-cpu", command_bench_cpu}, {"matmul", command_matmul}};
#ifdef MUNCH_WITH_CUDA
    commands.insert(commands.end(), {{"variants", command_variants}, {"bench", command_bench}, {"pipeline", command_pipeline},
                                     {"launch", command_launch},
                                     {"pattern", command_pattern}, {"copy", command_copy}, {"roofline", command_roofline},
                                     {"ieee", command_ieee}});
#else
    for (const char* name : {"variants", "bench", "pipeline", "launch", "pattern", "copy", "roofline", "ieee"})
        commands.push_back({name, {}, "needs the CUDA build (this one was built without CUDA)"});
#endif
    return harness::run_subcommand("munch", usage, commands, argc, argv);
}
