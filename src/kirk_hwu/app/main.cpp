// kirk_hwu: MRI reconstruction (Q, F^H d) and direct Coulomb summation, CPU baselines and CUDA ladders.
#include "harness/subcommands.hpp"
#include "kirk_hwu/app/commands.hpp"

namespace {

const char* usage =
    "usage: kirk_hwu <command> [options]\n"
    "\n"
    "commands:\n"
    "  cpu       time the single-thread CPU loops (FP64, FP32) and their error against FP64\n"
    "  variants  list the GPU variants: step, tolerance, what each changes\n"
    "  bench     check GPU variants against the FP64 reference, then time them (CUDA events)\n"
    "  rates     the FMA, sin+cos and rsqrt rate microbenchmark behind the throughput bounds\n"
    "  reconstruct  the iterative (conjugate-gradient) and gridding reconstruction of a phantom, per stage\n"
    "  nufft     F^H d by the direct sums and by the non-uniform FFT at each accuracy (GPU), checked, timed\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace kirk_hwu::app;
    return harness::run_subcommand("kirk_hwu", usage,
                                   {{"cpu", command_cpu}, {"variants", command_variants}, {"bench", command_bench},
                                    {"rates", command_rates}, {"reconstruct", command_reconstruct},
                                    {"nufft", command_nufft}},
                                   argc, argv);
}
