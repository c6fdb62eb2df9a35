/// @file commands.hpp
/// @brief The subcommands of the `ryoo` program; each takes its arguments after the command name and
/// returns the exit status.
#pragma once

#include <string>
#include <vector>

namespace ryoo::app {

/// The arguments of one command (without the program and command names).
using Args = std::vector<std::string>;

/// `ryoo info`: the build's facts as JSON (CUDA, the CPU BLAS).
int command_info(const Args& args);
/// `ryoo bench-cpu`: times the CPU BLAS SGEMM and checks its product.
int command_bench_cpu(const Args& args);
/// `ryoo variants`: every GPU matrix-multiplication kernel with registers, local memory and occupancy (CSV).
int command_variants(const Args& args);
/// `ryoo bench`: times matrix-multiplication variants (CUDA events) after checking each one's product.
int command_bench(const Args& args);
/// `ryoo stream`: times SAXPY and the copy kernels, each checked exactly.
int command_stream(const Args& args);
/// `ryoo profile`: one launch of each named variant, for the profiler.
int command_profile(const Args& args);

/// `ryoo elimination`: SAXPY inside an unblocked Gaussian elimination, CPU and GPU, checked, then timed.
int command_elimination(const Args& args);
/// `ryoo tpacf`: the two-point angular correlation histograms, CPU and GPU, checked exactly, then timed.
int command_tpacf(const Args& args);
/// `ryoo rc5`: the RC5-72 key search, CPU and GPU, checked against the planted key, then timed.
int command_rc5(const Args& args);
/// `ryoo pns`: the Petri-net simulation, CPU and GPU, checked exactly, then timed.
int command_pns(const Args& args);
/// `ryoo h264`: H.264 motion estimation (SADs of a search window), CPU and GPU, checked exactly, then timed.
int command_h264(const Args& args);
/// `ryoo rpes`: two-electron repulsion integrals (one-root Rys), CPU and GPU, checked within a bound, then timed.
int command_rpes(const Args& args);
/// `ryoo matmul-app`: matrix multiplication as an application: the CPU BLAS on one thread, then GPU variants.
int command_matmul_app(const Args& args);
/// `ryoo mri-q`: the kirk_hwu study's MRI-Q as an application of the suite.
int command_mri_q(const Args& args);
/// `ryoo mri-fhd`: the kirk_hwu study's MRI-FHD as an application of the suite.
int command_mri_fhd(const Args& args);
/// `ryoo cp`: the kirk_hwu study's direct Coulomb summation as an application of the suite.
int command_cp(const Args& args);
/// `ryoo fdtd`: the 2-D FDTD simulation with its per-step energy probe, CPU and GPU, checked exactly, then timed.
int command_fdtd(const Args& args);
/// `ryoo fem`: the FEM stand-in (wave equation on a shuffled tetrahedral mesh), CPU and GPU, checked exactly, then timed.
int command_fem(const Args& args);
/// `ryoo lbm`: the D3Q19 lattice-Boltzmann cavity, CPU and GPU, checked exactly, then timed.
int command_lbm(const Args& args);
/// `ryoo profile-apps`: one launch of each named application kernel, for the profiler.
int command_profile_apps(const Args& args);

/// Prints "<application> <variant>" for every registered application variant (no device touched).
void print_application_names();
/// Prints one `ryoo variants` row per application kernel; @p max_warps: the device's warps per SM.
void print_application_kernels(int max_warps);

/// Comma-separated names in @p text, or every name of @p all for "all"; an empty item is an error.
std::vector<std::string> split_names(const std::string& text, const std::vector<std::string>& all,
                                     const std::string& option = "--variants");

}  // namespace ryoo::app
