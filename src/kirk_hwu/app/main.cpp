// kirk_hwu: MRI reconstruction (Q, F^H d) and direct Coulomb summation, CPU baselines and CUDA ladders.
#include "harness/subcommands.hpp"
#include "kirk_hwu/app/commands.hpp"

int main(int argc, char** argv) {
    using namespace kirk_hwu::app;
    using Command = std::function<int(const std::vector<std::string>&)>;
#if defined(KIRK_HWU_WITH_CUDA)
    const std::string gpu_build;
    const Command variants = command_variants, bench = command_bench, rates = command_rates, split = command_split,
                  nufft = command_nufft;
#else
    // A command of a build without CUDA is listed all the same, and says what it needs when run.
    const std::string gpu_build = harness::needs_cuda_build;
    const Command variants, bench, rates, split, nufft;
#endif
    const harness::Program program{
        "kirk_hwu",
        "The MRI reconstruction (Q, F^H d) and direct Coulomb summation case studies of Kirk and Hwu: the CPU "
        "baselines, the CUDA ladders, and the reconstruction they exist for.",
        {{"cpu", command_cpu, "", "time the single-thread CPU loops (FP64, FP32) and their error against FP64"},
         {"cpu-bench", command_cpu_bench, "",
          "the documents' and the tuned single-thread CPU loops, checked against FP64, then timed"},
         {"variants", variants, gpu_build, "list the GPU variants: step, tolerance, what each changes, resources"},
         {"bench", bench, gpu_build, "check GPU variants against the FP64 reference, then time them (CUDA events)"},
         {"rates", rates, gpu_build, "the FMA, sin+cos and rsqrt rate microbenchmark behind the throughput bounds"},
         {"split", split, gpu_build,
          "the MRI image in subsets of voxels (the documents' increased resolutions), timed per pass"},
         {"solver", command_solver, "",
          "the reconstruction's linear solver on one CPU thread (its Q and F^H d from the GPU or the CPU)"},
         {"reconstruct", command_reconstruct, "",
          "the iterative (conjugate-gradient) and gridding reconstruction of a phantom, per stage"},
         {"nufft", nufft, gpu_build,
          "F^H d by the direct sums and by the non-uniform FFT at each accuracy (GPU), checked, timed"}}};
    return harness::run_subcommand(program, argc, argv);
}
