// kirk_hwu: MRI reconstruction (Q, F^H d) and direct Coulomb summation, CPU baselines and CUDA ladders.
#include "harness/subcommands.hpp"
#include "kirk_hwu/app/commands.hpp"

int main(int argc, char** argv) {
    using namespace kirk_hwu::app;
    using Command = std::function<int(const std::vector<std::string>&)>;
#if defined(KIRK_HWU_WITH_CUDA)
    const std::string gpu_build;
    const Command variants = command_variants, bench = command_bench, rates = command_rates;
#else
    // A command of a build without CUDA is listed all the same, and says what it needs when run.
    const std::string gpu_build = harness::needs_cuda_build;
    const Command variants, bench, rates;
#endif
    const harness::Program program{
        "kirk_hwu",
        "The MRI reconstruction (Q, F^H d) and direct Coulomb summation case studies of Kirk and Hwu: the CPU "
        "baselines, the CUDA ladders, and the reconstruction they exist for.",
        {{"cpu", command_cpu, "", "time the single-thread CPU loops (FP64, FP32) and their error against FP64"},
         {"variants", variants, gpu_build, "list the GPU variants: step, tolerance, what each changes, resources"},
         {"bench", bench, gpu_build, "check GPU variants against the FP64 reference, then time them (CUDA events)"},
         {"rates", rates, gpu_build, "the FMA, sin+cos and rsqrt rate microbenchmark behind the throughput bounds"},
         {"reconstruct", command_reconstruct, "",
          "the iterative (conjugate-gradient) and gridding reconstruction of a phantom, per stage"}}};
    return harness::run_subcommand(program, argc, argv);
}
