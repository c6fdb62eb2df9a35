/// @file commands.hpp
/// @brief The GPU commands after their options were parsed (by mwsep::app, before any GPU use):
/// `mwsep variants` (the kernel variants with their compiler resource report and, on a GPU, their runtime
/// attributes and theoretical occupancy) and `mwsep bench` (timed evaluations).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "harness/measure.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/variants.hpp"

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

/// The options of `mwsep variants`.
struct VariantsOptions {
    /// Stream count of the instances listed.
    int streams = 3;
    /// Threads per block, for shared memory and occupancy.
    int threads = 64;
    /// The compiler's resource report (default_resource_report()).
    std::string report;
};

/// `mwsep variants`: prints every variant with its compiler resource report and, on a GPU, its runtime
/// attributes and theoretical occupancy. Returns the exit status: 1 if an instance has no report entry.
int list_variants(const VariantsOptions& options);

/// The options of `mwsep bench`, checked by the caller.
struct BenchOptions {
    /// The variants to time, in order.
    std::vector<const VariantInfo*> variants;
    /// How to measure each variant: the stop rule (after one warm-up), cold or warm, throttled samples.
    harness::MeasureOptions measure;
    /// The likelihood every timed run is checked against; NaN: computed here with the fast CPU integrator.
    double expected = NAN;
    /// How to launch the kernels.
    LaunchOptions launch;
    /// Array-of-structures star layout instead of structure of arrays.
    bool aos = false;
    /// Families that spread over devices use every GPU.
    bool all_devices = false;
    /// Run on this many SMs through a green context (0: the whole GPU).
    int sm_count = 0;
    /// CSV file to append one row per repeat to (empty: none).
    std::string csv_path;
    /// Device record to write (empty: none).
    std::string meta_path;
    /// Work-unit label of every row.
    std::string work_unit;
    /// Experiment label of every row.
    std::string experiment = "bench";
    /// The command line, for the device record.
    std::string command;
};

/// One timed evaluation and its check.
struct TimedEvaluation {
    /// What evaluate() returned.
    GpuResult result;
    /// Integral kernels [ms], CUDA events.
    double integral_ms = 0;
    /// Likelihood kernel [ms], CUDA events.
    double likelihood_ms = 0;
    /// The evaluation end to end [ms], wall clock.
    double total_ms = 0;
    /// The likelihood it computed.
    double likelihood = 0;
    /// Its relative difference from the check value.
    double rel_diff = 0;
    /// Whether rel_diff is within the precision's tolerance.
    bool valid = false;
};

/// Evaluates variant @p v once on @p device, measures it, and checks its likelihood against @p expected.
TimedEvaluation time_one_evaluation(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                                    const VariantInfo& v, int device, const LaunchOptions& launch, bool soa,
                                    double expected);

/// `mwsep bench` on the loaded inputs: after a warm-up per variant, samples under options.measure,
/// their rows and a summary.
/// Returns 1 if a timed run disagreed with the check value.
int run_bench(const BenchOptions& options, const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars);

}  // namespace mwsep::cuda
