/// @file commands.hpp
/// @brief `mwsep variants`: the kernel variants with their compiler resource report and, on a GPU,
/// their runtime attributes and theoretical occupancy.
#pragma once

#include <string>
#include <vector>

namespace mwsep::cuda {

/// One kernel as the compiler (ptxas) reported it for the build's target architecture.
struct CompiledKernel {
    /// Its demangled name with template arguments, without return type and parameters: the identity a
    /// variant's KernelSet::identity gives for its instance.
    std::string identity;
    std::string arch;     ///< e.g. sm_90
    int registers = -1;     ///< per thread (-1: not in the report)
    int spill_stores = -1;  ///< bytes
    int spill_loads = -1;   ///< bytes
    int stack = -1;         ///< bytes of stack frame
};

/// Parses the ptxas resource report written next to the binary at build time (kernel_resources.txt):
/// every kernel entry. Throws std::runtime_error if the file is missing.
std::vector<CompiledKernel> read_resource_report(const std::string& path);

/// The entry of @p report whose identity is exactly @p identity; nullptr if there is none (or
/// @p identity is empty: no such instance).
const CompiledKernel* find_compiled(const std::vector<CompiledKernel>& report, const std::string& identity);

/// Path of the build's resource report (beside the mwsep binary).
std::string default_resource_report();

/// `mwsep variants`: prints every variant with its compiler resource report and, on a GPU, its runtime
/// attributes and theoretical occupancy. @p args are the options after the subcommand; returns the exit status.
int command_variants(const std::vector<std::string>& args);

/// `mwsep bench`: times variants with CUDA events after a warm-up and checks each run against the CPU.
int command_bench(const std::vector<std::string>& args);

}  // namespace mwsep::cuda
