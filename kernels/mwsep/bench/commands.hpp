/// @file commands.hpp
/// @brief The microbenchmark commands of the `mwsep` program (CUDA build only): `mwsep exp-throughput`, the
/// exponentials per second of the kernels' candidate exponential functions, and `mwsep hardware-micro`, the
/// hardware explanations the thesis gives without measuring them. Each takes its arguments after the
/// command name, checks its GPU results against the host's before it times them, times through the
/// measurement engine, prints its CSV on standard output and returns the exit status.
#pragma once

#include <string>
#include <vector>

namespace mwsep::bench {

/// `mwsep exp-throughput [--set library|lean] [--only F:A] [--once] [measurement options]`.
int command_exp_throughput(const std::vector<std::string>& args);

/// `mwsep hardware-micro [measurement options]`.
int command_hardware_micro(const std::vector<std::string>& args);

}  // namespace mwsep::bench
