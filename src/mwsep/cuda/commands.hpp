/// @file commands.hpp
/// @brief `mwsep variants`: the kernel variants with their compiler resource report and, on a GPU,
/// their runtime attributes and theoretical occupancy.
#pragma once

#include <string>
#include <vector>

namespace mwsep::cuda {

/// One kernel instance as the compiler (ptxas) reported it for the build's target architecture.
struct CompiledKernel {
    std::string variant;  ///< memory-divsqrt-loop-precision
    int streams = 0;      ///< template stream count (unrolled) or 0 (loop)
    bool capped = false;  ///< the 48-register build
    std::string arch;     ///< e.g. sm_90
    int registers = -1;     ///< per thread (-1: not in the report)
    int spill_stores = -1;  ///< bytes
    int spill_loads = -1;   ///< bytes
    int stack = -1;         ///< bytes of stack frame
};

/// Parses the ptxas resource report written next to the binary at build time (kernel_resources.txt).
/// Entries that are not integral kernels are ignored. Throws std::runtime_error if the file is missing.
std::vector<CompiledKernel> read_resource_report(const std::string& path);

/// Path of the build's resource report (beside the mwsep binary).
std::string default_resource_report();

/// `mwsep variants`: prints every variant with its compiler resource report and, on a GPU, its runtime
/// attributes and theoretical occupancy. @p args are the options after the subcommand; returns the exit status.
int command_variants(const std::vector<std::string>& args);

/// `mwsep bench`: times variants with CUDA events after a warm-up and checks each run against the CPU.
int command_bench(const std::vector<std::string>& args);

}  // namespace mwsep::cuda
