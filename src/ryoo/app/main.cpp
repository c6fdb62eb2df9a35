// ryoo: the matrix-multiplication ladder of Ryoo et al. (PPoPP 2008), SAXPY and the references, and the
// paper's applications (SAXPY in elimination, TPACF, RC5-72, PNS, and matrix multiplication, MRI-Q, MRI-FHD
// and CP as applications) on today's GPU. One program, several subcommands.
#include "harness/subcommands.hpp"
#include "ryoo/app/commands.hpp"

int main(int argc, char** argv) {
    using namespace ryoo::app;
#if defined(RYOO_WITH_CUDA)
    const std::string gpu_build;
#else
    const std::string gpu_build = harness::needs_cuda_build;
#endif
    const harness::Program program{
        "ryoo",
        "Ryoo et al. (PPoPP 2008) on today's GPU: the matrix-multiplication ladder, SAXPY, the CPU BLAS and the "
        "paper's applications, each result checked before it is timed.",
        {{"info", command_info, "", "the build's facts (CUDA, CPU BLAS) as JSON"},
         {"bench-cpu", command_bench_cpu, "", "time the CPU BLAS SGEMM (OpenBLAS) and check its product"},
         {"variants", command_variants, gpu_build,
          "list the GPU matrix-multiplication kernels: registers, local memory, occupancy"},
         {"bench", command_bench, gpu_build,
          "time GPU matrix-multiplication variants, each checked against a double-precision product"},
         {"stream", command_stream, gpu_build, "time SAXPY and the copy kernels, each checked exactly"},
         {"profile", command_profile, gpu_build, "one launch of each named variant (for Nsight Compute)"},
         {"elimination", command_elimination, gpu_build,
          "SAXPY inside Gaussian elimination (HPL's saxpy): CPU and GPU, checked, timed"},
         {"tpacf", command_tpacf, gpu_build,
          "two-point angular correlation histograms: CPU and GPU, checked exactly, timed"},
         {"rc5", command_rc5, gpu_build,
          "RC5-72 key search: CPU and GPU (shift-emulated and funnel-shift rotate), checked, timed"},
         {"pns", command_pns, gpu_build,
          "stochastic Petri-net simulation: CPU and GPU, resident trajectories capped, checked, timed"},
         {"h264", command_h264, gpu_build,
          "H.264 motion estimation (SAD search): CPU and GPU (global, __ldg, texture reads), checked, timed"},
         {"rpes", command_rpes, gpu_build,
          "two-electron repulsion integrals (one-root Rys): CPU and GPU, checked against double precision, timed"},
         {"matmul-app", command_matmul_app, gpu_build,
          "matrix multiplication as an application: one-thread CPU BLAS and GPU, checked, timed"},
         {"mri-q", command_mri_q, gpu_build, "MRI-Q (the kirk_hwu study's kernels): one-thread CPU and GPU, checked, timed"},
         {"mri-fhd", command_mri_fhd, gpu_build,
          "MRI-FHD (the kirk_hwu study's kernels): one-thread CPU and GPU, checked, timed"},
         {"cp", command_cp, gpu_build,
          "CP, direct Coulomb summation (the kirk_hwu study's kernels): CPU and GPU, checked, timed"},
         {"fdtd", command_fdtd, gpu_build,
          "2-D FDTD in a user-defined medium, energy probed each step: CPU and GPU, checked exactly, timed"},
         {"lbm", command_lbm, gpu_build,
          "D3Q19 lattice Boltzmann, lid-driven cavity: CPU and GPU (AoS, AoS staged, SoA), checked exactly, timed"},
         {"fem", command_fem, gpu_build,
          "FEM stand-in: wave equation on a shuffled tetrahedral mesh: CPU and GPU, checked exactly, timed"},
         {"profile-apps", command_profile_apps, gpu_build,
          "one launch of each named application kernel (for Nsight Compute)"}}};
    return harness::run_subcommand(program, argc, argv);
}
