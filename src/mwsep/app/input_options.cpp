#include "mwsep/app/input_options.hpp"

#include <climits>

#include "mwsep/model/search_parameters.hpp"

namespace mwsep::app {

using harness::Options;
using harness::OptionSpec;
namespace opt = harness::option;

std::vector<OptionSpec> input_options(bool stars, std::vector<OptionSpec> extra) {
    std::vector<OptionSpec> out = {opt::required("-a", "FILE", "the work unit: its astronomy_parameters.txt")};
    if (stars) out.push_back(opt::required("-s", "FILE", "the star catalogue: the count, then 'l b r' per line"));
    for (auto& s : std::vector<OptionSpec>{
             opt::value("--search-parameters", "FILE", "the parameter vector from a 2009 search_parameters.txt",
                        "the work unit's own values"),
             opt::value("--np", "N", "the number of values given with -p (a parameter vector on the command line)",
                        "none"),
             opt::list("-p", "V", "the parameter vector's values, with --np", "none"),
             opt::value("--r-binning", "magnitude|kpc",
                        "r bins uniform in magnitude (as the thesis's CUDA code) or in kpc (the December 2009 CPU code)",
                        "magnitude"),
             opt::flag("--force", "compute even a work unit above the size limits (quadrature points, tables, "
                                  "convolve), which are refused otherwise")})
        out.push_back(std::move(s));
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

RunOptions input_run_options(const Options& opt, bool need_stars) {
    RunOptions o;
    o.astronomy_path = opt.require("-a");
    if (need_stars) o.stars_path = opt.require("-s");
    if (opt.has("--search-parameters")) o.search_path = opt.text("--search-parameters");
    if (opt.has("--np") != opt.has("-p")) throw opt.error("--np", "and -p v1 ... vN go together");
    if (opt.has("--np"))
        o.search_vector = model::search_vector_from_arguments(static_cast<int>(opt.integer("--np", 0, 0, INT_MAX)),
                                                              opt.list("-p"));
    o.r_binning = opt.choice("--r-binning", {"magnitude", "kpc"}, "magnitude") == "kpc" ? model::RBinning::kpc
                                                                                           : model::RBinning::magnitude;
    o.force = opt.has("--force");
    return o;
}

}  // namespace mwsep::app
