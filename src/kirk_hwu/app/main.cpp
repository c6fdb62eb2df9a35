// kirk_hwu: MRI reconstruction (Q, F^H d) and direct Coulomb summation, CPU baselines and CUDA ladders.
#include "harness/subcommands.hpp"
#include "kirk_hwu/app/commands.hpp"

namespace {

const char* usage =
    "usage: kirk_hwu <command> [options]\n"
    "\n"
    "commands:\n"
    "  cpu       time the single-thread CPU loops (FP64, FP32) and their error against FP64\n"
    "  cpu-bench the documents' and the tuned single-thread CPU loops, checked against FP64, then timed\n"
    "  variants  list the GPU variants: step, tolerance, what each changes\n"
    "  bench     check GPU variants against the FP64 reference, then time them (CUDA events)\n"
    "  rates     the FMA, sin+cos and rsqrt rate microbenchmark behind the throughput bounds\n"
    "  split     the MRI image in subsets of voxels (the documents' increased resolutions), timed per pass\n"
    "  solver    the reconstruction's linear solver on one CPU thread (its Q and F^H d from the GPU or the CPU)\n"
    "  reconstruct  the iterative (conjugate-gradient) and gridding reconstruction of a phantom, per stage\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace kirk_hwu::app;
    return harness::run_subcommand("kirk_hwu", usage,
                                   {{"cpu", command_cpu}, {"cpu-bench", command_cpu_bench}, {"variants", command_variants}, {"bench", command_bench},
                                    {"rates", command_rates}, {"reconstruct", command_reconstruct}, {"solver", command_solver}, {"split", command_split}},
                                   argc, argv);
}
