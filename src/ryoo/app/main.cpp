// ryoo: the matrix-multiplication ladder of Ryoo et al. (PPoPP 2008), SAXPY and the references, and the
// paper's applications (SAXPY in elimination, TPACF, RC5-72, PNS, and matrix multiplication, MRI-Q, MRI-FHD
// and CP as applications) on today's GPU. One program, several subcommands.
#include "harness/subcommands.hpp"
#include "ryoo/app/commands.hpp"

namespace {

const char* usage =
    "usage: ryoo <command> [options]\n"
    "\n"
    "commands:\n"
    "  info       the build's facts (CUDA, CPU BLAS) as JSON\n"
    "  bench-cpu  time the CPU BLAS SGEMM (OpenBLAS) and check its product\n"
    "  variants   list the GPU matrix-multiplication kernels: registers, local memory, occupancy\n"
    "  bench      time GPU matrix-multiplication variants, each checked against a double-precision product\n"
    "  stream     time SAXPY and the copy kernels, each checked exactly\n"
    "  profile    one launch of each named variant (for Nsight Compute)\n"
    "  elimination  SAXPY inside Gaussian elimination (HPL's saxpy): CPU and GPU, checked, timed\n"
    "  tpacf      two-point angular correlation histograms: CPU and GPU, checked exactly, timed\n"
    "  rc5        RC5-72 key search: CPU and GPU (shift-emulated and funnel-shift rotate), checked, timed\n"
    "  pns        stochastic Petri-net simulation: CPU and GPU, resident trajectories capped, checked, timed\n"
    "  h264       H.264 motion estimation (SAD search): CPU and GPU (global, __ldg, texture reads), checked, timed\n"
    "  rpes       two-electron repulsion integrals (one-root Rys): CPU and GPU, checked against double precision, timed\n"
    "  matmul-app matrix multiplication as an application: one-thread CPU BLAS and GPU, checked, timed\n"
    "  mri-q      MRI-Q (the kirk_hwu study's kernels): one-thread CPU and GPU, checked, timed\n"
    "  mri-fhd    MRI-FHD (the kirk_hwu study's kernels): one-thread CPU and GPU, checked, timed\n"
    "  cp         CP, direct Coulomb summation (the kirk_hwu study's kernels): CPU and GPU, checked, timed\n"
    "  fdtd       2-D FDTD in a user-defined medium, energy probed each step: CPU and GPU, checked exactly, timed\n"
    "  lbm        D3Q19 lattice Boltzmann, lid-driven cavity: CPU and GPU (AoS, AoS staged, SoA), checked exactly, timed\n"
    "  fem        FEM stand-in: wave equation on a shuffled tetrahedral mesh: CPU and GPU, checked exactly, timed\n"
    "  profile-apps  one launch of each named application kernel (for Nsight Compute)\n"
    "\n"
    "'ryoo <command> --help' lists each command's options.\n";

}  // namespace

int main(int argc, char** argv) {
    using namespace ryoo::app;
    return harness::run_subcommand("ryoo", usage,
                                   {{"info", command_info}, {"bench-cpu", command_bench_cpu},
                                    {"variants", command_variants}, {"bench", command_bench},
                                    {"stream", command_stream}, {"profile", command_profile},
                                    {"elimination", command_elimination}, {"tpacf", command_tpacf}, {"rc5", command_rc5},
                                    {"pns", command_pns}, {"h264", command_h264}, {"rpes", command_rpes}, {"fdtd", command_fdtd},
                                    {"lbm", command_lbm}, {"fem", command_fem}, {"matmul-app", command_matmul_app}, {"mri-q", command_mri_q},
                                    {"mri-fhd", command_mri_fhd}, {"cp", command_cp}, {"profile-apps", command_profile_apps}},
                                   argc, argv);
}
