/// @file commands.hpp
/// @brief The subcommands of `mwsep`. Each takes its arguments (after the subcommand name) and returns
/// the process exit status.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mwsep/model/progress.hpp"

namespace mwsep::app {

/// A subcommand's command-line arguments, without the program and subcommand names.
using Args = std::vector<std::string>;

/// What a host runtime (BOINC) adds to `mwsep run`; every member empty in the ordinary program.
struct RunHooks {
    /// Maps each file name of the command line (inputs, checkpoint, --result) to the file to open. When
    /// set, `mwsep run` also takes `--result FILE`, the file its JSON result goes to.
    std::function<std::string(const std::string&)> resolve;
    model::ProgressFn progress;            ///< told the integral's progress, besides the progress bar
    std::function<bool()> checkpoint_due;  ///< another reason to checkpoint now (Checkpoint::also_due)
    std::function<void()> checkpoint_saved;  ///< told after each checkpoint (Checkpoint::on_saved)
};

/// Evaluates one likelihood; @p hooks connect it to a host runtime (none in the ordinary program).
int command_run(const Args& args, const RunHooks& hooks = {});
/// `mwsep run` as a BOINC application: starts the runtime, runs command_run with the runtime's hooks and
/// ends through boinc_finish (defined only in a build with MWSEP_BOINC).
int command_run_boinc(const Args& args);
int command_generate(const Args& args);  ///< sample a synthetic star catalogue
int command_bench_cpu(const Args& args); ///< quadrature points per second of the CPU integrators
int command_skipping(const Args& args);  ///< how many stream terms the rigorous bound skips
int command_variants(const Args& args);  ///< list the CUDA kernel variants and their resources
int command_bench(const Args& args);     ///< time CUDA kernel variants

}  // namespace mwsep::app
