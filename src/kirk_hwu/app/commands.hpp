/// @file commands.hpp
/// @brief The subcommands of the `kirk_hwu` program; each returns the process's exit status.
#pragma once

#include <string>
#include <vector>

namespace kirk_hwu::app {

/// `kirk_hwu cpu`: times the documents' single-thread CPU loops and measures their error against FP64.
int command_cpu(const std::vector<std::string>& args);
/// `kirk_hwu cpu-bench`: the documents' and the tuned single-thread loops, checked, then timed by the CPU engine.
int command_cpu_bench(const std::vector<std::string>& args);
/// `kirk_hwu variants`: lists every GPU variant with its step, tolerance and description.
int command_variants(const std::vector<std::string>& args);
/// `kirk_hwu bench`: checks each named GPU variant against the FP64 reference, then times it.
int command_bench(const std::vector<std::string>& args);
/// `kirk_hwu rates`: the FMA, sin+cos and rsqrt rate microbenchmark.
int command_rates(const std::vector<std::string>& args);
/// `kirk_hwu solver`: the reconstruction's linear solver on one CPU thread, checked, then timed by the CPU engine.
int command_solver(const std::vector<std::string>& args);
/// `kirk_hwu split`: the MRI image in subsets of voxels, one device copy and its launches per subset, timed whole.
int command_split(const std::vector<std::string>& args);
/// `kirk_hwu reconstruct`: the iterative and the gridding reconstruction of a phantom, timed per stage.
int command_reconstruct(const std::vector<std::string>& args);
/// `kirk_hwu nufft`: F^H d by the FP64 and the fastest direct sums and by the non-uniform FFT at each accuracy,
/// checked then timed on the GPU, the reconstruction with each, and the inputs of a peer NUFFT.
int command_nufft(const std::vector<std::string>& args);

}  // namespace kirk_hwu::app
