/// @file commands.hpp
/// @brief The subcommands of `mwsep`. Each takes its arguments (after the subcommand name) and returns
/// the process exit status.
#pragma once

#include <string>
#include <vector>

namespace mwsep::app {

/// A subcommand's command-line arguments, without the program and subcommand names.
using Args = std::vector<std::string>;

int command_run(const Args& args);       ///< evaluate one likelihood
int command_generate(const Args& args);  ///< sample a synthetic star catalogue
int command_bench_cpu(const Args& args); ///< quadrature points per second of the CPU integrators
int command_skipping(const Args& args);  ///< how many stream terms the rigorous bound skips
int command_variants(const Args& args);  ///< list the CUDA kernel variants and their resources
int command_bench(const Args& args);     ///< time CUDA kernel variants

}  // namespace mwsep::app
