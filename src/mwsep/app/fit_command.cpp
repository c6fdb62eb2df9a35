#include "mwsep/app/fit_command.hpp"

#include <cstdlib>
#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "harness/options.hpp"

#if defined(MWSEP_WITH_FIT)
#include "harness/atomic_file.hpp"
#include "mwsep/app/evaluate.hpp"
#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/optimizer.hpp"
#include "mwsep/fit/ranks.hpp"
#include "mwsep/fit/report.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"
#endif

namespace mwsep::app {

#if defined(MWSEP_WITH_FIT)
namespace {

using harness::OptionKind;

const char* fit_help =
    "usage: mwsep fit -a astronomy_parameters.txt -s stars.txt [options]\n"
    "Fits the parameters the work unit marks as optimised (optimize_parameter, optimize_weight) within\n"
    "their min/max bounds: a global search (pagmo2), then a local polish (NLopt BOBYQA), then the\n"
    "uncertainties from the numerical Hessian of the likelihood at the optimum.\n"
    "  -a FILE                    the work unit\n"
    "  -s FILE                    the star catalogue\n"
    "  --search-parameters FILE   the start vector (default: the work unit's values)\n"
    "  --truth FILE               the true vector (search-parameters file), reported beside the fit\n"
    "  --box F                    search start +- F x each parameter's range, within its bounds (default 1: the bounds)\n"
    "  --r-binning magnitude|kpc  r bins uniform in magnitude (default) or in kpc\n"
    "  --backend auto|cpu|cuda    where candidates are evaluated (default auto: every GPU if there is one)\n"
    "  --variant NAME             CUDA kernel variant (default modern-f64; compressed-f64 with --integrator compressed)\n"
    "  --integrator exact|compressed  the exact sum (default) or the compressed line-of-sight quadrature, a\n"
    "                             different algorithm with a controlled error; the optimum is then evaluated\n"
    "                             again with the exact sum (modern-f64 or the fast CPU integrator)\n"
    "  --devices LIST             comma-separated CUDA devices, or local-rank: one device per MPI rank, the\n"
    "                             node-local rank mod the device count (the default under mpirun with\n"
    "                             several ranks; otherwise every device with double precision)\n"
    "  --threads N                CPU threads (default 0: all cores)\n"
    "  --algorithm pso|de|cmaes   the global search (default pso: one batch per generation)\n"
    "  --population N             candidates per generation (default 24)\n"
    "  --generations N            generations (default 30)\n"
    "  --seed N                   the same seed gives the same fit for any split of the batches (default 1)\n"
    "  --polish N                 most evaluations of each local polish (default 300; 0: none); one polish\n"
    "                             starts from the global search's best, one from the start vector\n"
    "  --no-polish-from-start     polish from the global search's best only\n"
    "  --hessian-step F           first finite-difference step as a fraction of each box width (default\n"
    "                             1e-3); the Hessian then steps one sigma of each parameter\n"
    "  --no-uncertainties         skip the Hessian\n"
    "  --checkpoint FILE          write the search's state after every generation   --resume  continue from it\n"
    "  --stop-after N             stop after N generations of this run (tests of resuming)\n"
    "  -o FILE                    write the best vector as search_parameters.txt\n"
    "  --report FILE              write the JSON report   --progress FILE  the per-generation CSV\n"
    "  --work-unit NAME --experiment NAME   labels written in the report\n"
    "  --quiet                    no progress lines\n"
    "  --print-vector             print the search vector (name value lower upper per line) and exit; -s not needed\n"
    "Under mpirun, rank 0 drives the search and every rank evaluates its share of each batch.\n";

std::vector<int> parse_devices(const harness::Options& opt) {
    std::vector<int> out;
    if (!opt.has("--devices") || opt.text("--devices") == "local-rank") return out;
    const std::string text = opt.text("--devices");
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 4)
            throw opt.error("--devices", "expected device numbers separated by commas, found '" + text + "'");
        out.push_back(std::stoi(item));
        start = comma + 1;
    }
    return out;
}

int run_fit_command(const Args& args) {
    const harness::Options opt(args,
                               {{"-a", OptionKind::value},           {"-s", OptionKind::value},
                                {"--search-parameters", OptionKind::value}, {"--truth", OptionKind::value},
                                {"--box", OptionKind::value},        {"--r-binning", OptionKind::value},
                                {"--backend", OptionKind::value},    {"--variant", OptionKind::value},
                                {"--devices", OptionKind::value},    {"--threads", OptionKind::value},
                                {"--algorithm", OptionKind::value},  {"--population", OptionKind::value},
                                {"--generations", OptionKind::value}, {"--seed", OptionKind::value},
                                {"--polish", OptionKind::value},     {"--hessian-step", OptionKind::value},
                                {"--no-polish-from-start", OptionKind::flag},
                                {"--no-uncertainties", OptionKind::flag}, {"--checkpoint", OptionKind::value},
                                {"--resume", OptionKind::flag},      {"--stop-after", OptionKind::value},
                                {"-o", OptionKind::value},           {"--report", OptionKind::value},
                                {"--progress", OptionKind::value},   {"--work-unit", OptionKind::value},
                                {"--experiment", OptionKind::value}, {"--quiet", OptionKind::flag},
                                {"--print-vector", OptionKind::flag}, {"--integrator", OptionKind::value},
                                {"--help", OptionKind::flag},        {"-h", OptionKind::flag}},
                               "mwsep fit");
    if (opt.has("--help") || opt.has("-h")) {
        std::fputs(fit_help, stdout);
        return 0;
    }
    // Every option is checked, and every output path, before the inputs are read or a device is touched.
    RunOptions ro;
    ro.astronomy_path = opt.require("-a");
    if (opt.has("--print-vector")) {
        // The work unit's search vector with its bounds, for scripts: no second parser of the format.
        if (opt.has("--search-parameters")) ro.search_path = opt.text("--search-parameters");
        const fit::FitSpace space = fit::fit_space(read_work_unit(ro), true);
        for (std::size_t i = 0; i < space.size(); ++i)
            std::printf("%s %.17g %.17g %.17g\n", space.names[i].c_str(), space.start[i], space.lower[i], space.upper[i]);
        return 0;
    }
    ro.stars_path = opt.require("-s");
    if (opt.has("--search-parameters")) ro.search_path = opt.text("--search-parameters");
    ro.r_binning = opt.choice("--r-binning", {"magnitude", "kpc"}, "magnitude") == "kpc" ? model::RBinning::kpc
                                                                                          : model::RBinning::magnitude;
    fit::FitOptions fo;
    fo.algorithm = opt.choice("--algorithm", fit::algorithm_names, "pso");
    fo.population = static_cast<unsigned>(opt.integer("--population", 24, 2, 100000));
    fo.generations = static_cast<unsigned>(opt.integer("--generations", 30, 0, 1000000));
    fo.seed = static_cast<unsigned>(opt.integer("--seed", 1, 0, UINT_MAX));
    fo.polish_evaluations = static_cast<unsigned>(opt.integer("--polish", 300, 0, 10000000));
    fo.polish_from_start = !opt.has("--no-polish-from-start");
    fo.hessian_step = opt.real("--hessian-step", 1e-3);
    if (!(fo.hessian_step > 0 && fo.hessian_step < 0.5))
        throw opt.error("--hessian-step", "must lie in (0, 0.5), found '" + opt.text("--hessian-step") + "'");
    fo.uncertainties = !opt.has("--no-uncertainties");
    fo.checkpoint = opt.text("--checkpoint");
    fo.resume = opt.has("--resume");
    if (fo.resume && fo.checkpoint.empty()) throw opt.error("--resume", "needs --checkpoint FILE");
    fo.stop_after = static_cast<unsigned>(opt.integer("--stop-after", 0, 0, 1000000));
    const double box = opt.real("--box", 1.0);
    if (!(box > 0 && box <= 1)) throw opt.error("--box", "must lie in (0, 1], found '" + opt.text("--box") + "'");
    const std::string backend = opt.choice("--backend", {"auto", "cpu", "cuda"}, "auto");
    const bool compressed = opt.choice("--integrator", {"exact", "compressed"}, "exact") == "compressed";
    const std::string variant = opt.text("--variant", compressed ? "compressed-f64" : "modern-f64");
    if (compressed != (variant.rfind("compressed-", 0) == 0))
        throw opt.error("--variant", "'" + variant + "' does not match --integrator " + (compressed ? "compressed" : "exact"));
    const std::vector<int> devices = parse_devices(opt);
    const int threads = static_cast<int>(opt.integer("--threads", 0, 0, INT_MAX));
    for (const char* o : {"-o", "--report", "--progress", "--checkpoint"})
        if (opt.has(o)) harness::check_output_path(opt.text(o));
    const bool quiet = opt.has("--quiet");

    const fit::RankSession ranks;
    // One GPU per rank: with --devices local-rank, or by default when several ranks run under Open MPI's
    // mpirun, each rank takes the device of its node-local rank (mod the device count).
    const char* local_rank_env = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    const bool per_rank_device = opt.text("--devices", "") == "local-rank" ||
                                 (!opt.has("--devices") && ranks.size() > 1 && local_rank_env != nullptr);
    const int local_rank = local_rank_env ? std::atoi(local_rank_env) : 0;
    fit::FitData data;
    data.work_unit = read_work_unit(ro);
    data.stars = model::read_stars(ro.stars_path);
    data.r_binning = ro.r_binning;
    data.compressed = compressed;
    (void)checked_setup(data.work_unit, ro);  // the start's model: bad values and sizes stop here
    const fit::FitSpace full = fit::fit_space(data.work_unit, box < 1);
    const fit::FitSpace space = box < 1 ? fit::narrowed(full, box) : full;
    std::optional<std::vector<double>> truth;
    if (opt.has("--truth")) {
        truth = model::read_search_parameters(opt.text("--truth")).values;
        if (truth->size() != space.size())
            throw opt.error("--truth", "has " + std::to_string(truth->size()) + " values; the work unit optimises " +
                                           std::to_string(space.size()));
    }

    const bool gpu = backend == "cuda" || (backend == "auto" && fit::have_gpu_evaluator());
    std::unique_ptr<fit::BatchEvaluator> local;
    std::optional<std::vector<int>> exact_devices;  // set when the candidates run on GPUs
    if (gpu) {
        try {
            const std::vector<int> chosen =
                per_rank_device ? std::vector<int>{fit::device_for_local_rank(local_rank, variant)} : devices;
            local = fit::make_gpu_evaluator(data, variant, chosen);
            exact_devices = chosen;
        } catch (const std::exception& e) {
            if (backend == "cuda") throw;
            std::fprintf(stderr, "mwsep fit: no GPU (%s); evaluating on the CPU\n", e.what());
        }
    }
    if (!local) local = fit::make_cpu_evaluator(data, threads);

    if (ranks.rank() != 0) {
        fit::serve_batches(*local);
        return 0;
    }
    std::unique_ptr<fit::BatchEvaluator> spread = fit::make_rank_evaluator(*local);
    fit::BatchEvaluator& evaluator = spread ? *spread : *local;

    fit::ReportContext ctx;
    ctx.command = "mwsep fit";
    for (const auto& a : args) ctx.command += " " + a;
    ctx.work_unit = opt.text("--work-unit", ro.astronomy_path);
    ctx.experiment = opt.text("--experiment", "fit");
    ctx.evaluator = evaluator.description();
    ctx.ranks = ranks.size();
    ctx.stars = data.stars.size();
    ctx.options = fo;
    ctx.truth = truth;
    ctx.start_likelihood = evaluator.evaluate({space.start})[0];
    // The truth's own likelihood on this catalogue: a fit that ends below it has not found the maximum.
    if (truth) ctx.truth_likelihood = evaluator.evaluate({*truth})[0];
    if (!quiet)
        std::fprintf(stderr, "mwsep fit: %zu parameters, %zu stars, %s on %s; start L = %.10g\n", space.size(),
                     data.stars.size(), fo.algorithm.c_str(), ctx.evaluator.c_str(), ctx.start_likelihood);
    fit::FitResult result;
    try {
        result = fit::run_fit(space, evaluator, fo, data.stars.size(), [&](const fit::GenerationRecord& g) {
            if (!quiet)
                std::fprintf(stderr, "generation %u/%u  evaluations %lld  best L %.12g  %.2f s\n", g.generation,
                             fo.generations, g.evaluations, g.best, g.seconds);
        });
    } catch (...) {
        fit::end_batches();
        throw;
    }
    fit::end_batches();

    std::printf("likelihood %.17g (global search %.17g, start %.17g", result.likelihood, result.global_likelihood,
                ctx.start_likelihood);
    if (truth) std::printf(", truth %.17g", ctx.truth_likelihood);
    std::printf(")\n");
    for (const auto& p : result.polishes)
        std::printf("polish from the %s: %.17g after %lld evaluations\n", p.from.c_str(), p.likelihood, p.evaluations);
    for (std::size_t i = 0; i < space.size(); ++i)
        std::printf("%-16s %.12g +- %.3g%s\n", space.names[i].c_str(), result.best[i], result.sigma[i],
                    truth ? (" (true " + std::to_string((*truth)[i]) + ")").c_str() : "");
    std::printf("evaluations %lld (global %lld, polish %lld, Hessian %lld), %.3f s%s\n", result.evaluations,
                result.global_evaluations, result.polish_evaluations, result.hessian_evaluations, result.seconds,
                result.completed ? "" : " (stopped early: resume with --resume)");
    if (compressed) {
        // The optimum again with the exact sum, so that both likelihoods stand side by side.
        fit::FitData exact = data;
        exact.compressed = false;
        const auto exact_evaluator = exact_devices ? fit::make_gpu_evaluator(exact, "modern-f64", *exact_devices)
                                         : fit::make_cpu_evaluator(exact, threads);
        const double l_exact = exact_evaluator->evaluate({result.best})[0];
        std::printf("likelihood at the optimum: compressed quadrature %.17g, exact sum %.17g (difference %.3g)\n",
                    result.likelihood, l_exact, result.likelihood - l_exact);
    }
    if (opt.has("-o")) fit::write_search_parameters(opt.text("-o"), "fit", result.best);
    if (opt.has("--report")) fit::write_report(opt.text("--report"), space, result, ctx);
    if (opt.has("--progress")) fit::write_progress(opt.text("--progress"), result, ctx);
    return 0;
}

}  // namespace

int command_fit(const Args& args) { return run_fit_command(args); }
#else
int command_fit(const Args& args) {
    (void)args;
    throw std::runtime_error("this build has no fit: configure with pagmo2 and NLopt installed (libpagmo-dev, "
                             "libnlopt-dev) and MWSEP_FIT=ON");
}
#endif

}  // namespace mwsep::app
