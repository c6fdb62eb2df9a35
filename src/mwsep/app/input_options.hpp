// The input options every mwsep command that reads a work unit shares (run, generate, skipping, bench-cpu,
// bench, separate), declared once, and the part of RunOptions they fill.
#pragma once

#include <vector>

#include "harness/options.hpp"
#include "mwsep/app/evaluate.hpp"

namespace mwsep::app {

/// -a (with @p stars: -s too), --search-parameters, --np, -p, --r-binning and --force, then @p extra.
std::vector<harness::OptionSpec> input_options(bool stars, std::vector<harness::OptionSpec> extra);

/// Fills the input part of RunOptions from those options (with @p need_stars: the catalogue's path); reads no file.
RunOptions input_run_options(const harness::Options& opt, bool need_stars);

}  // namespace mwsep::app
