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

/// Comma-separated names in @p text, or every name of @p all for "all"; an empty item is an error.
std::vector<std::string> split_names(const std::string& text, const std::vector<std::string>& all,
                                     const std::string& option = "--variants");

}  // namespace ryoo::app
