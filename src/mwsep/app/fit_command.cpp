#include "mwsep/app/fit_command.hpp"

#include <chrono>
#include <cstdlib>
#include <climits>
#include <limits>
#include <utility>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "harness/options.hpp"
#include "harness/progress.hpp"
#include "harness/subcommands.hpp"

#if defined(MWSEP_WITH_FIT)
#include "harness/atomic_file.hpp"
#include "harness/output_paths.hpp"
#include "mwsep/app/evaluate.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/input_error.hpp"
#include "mwsep/resume/checkpoint.hpp"
#include "mwsep/fit/cma_search.hpp"
#include "mwsep/fit/evaluator.hpp"
#include "mwsep/fit/optimizer.hpp"
#include "mwsep/fit/ranks.hpp"
#include "mwsep/fit/report.hpp"
#include "mwsep/fit/space.hpp"
#include "mwsep/fit/thesis_search.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"
#if defined(MWSEP_WITH_CUDA)
#include "mwsep/cuda/variants.hpp"
#endif
#endif

namespace mwsep::app {

#if defined(MWSEP_WITH_FIT)
namespace {


namespace opt = harness::option;

/// The options of `mwsep fit`.
std::vector<harness::OptionSpec> fit_specs() {
    return {
        opt::required("-a", "FILE", "the work unit: its astronomy_parameters.txt"),
        opt::value("-s", "FILE", "the star catalogue (required, except with --print-vector)", ""),
        opt::value("--search-parameters", "FILE", "the start vector", "the work unit's values"),
        opt::value("--truth", "FILE", "the true vector (a search-parameters file), reported beside the fit", "none"),
        opt::value("--reference", "FILE",
                   "a vector to compare with (a search-parameters file, e.g. MilkyWay@Home's): its likelihood by the "
                   "fit's evaluator and, when that is not the exact sum, by the exact sum too, and its values beside "
                   "the fit's in the report",
                   "none"),
        opt::value("--box", "F",
                   "search start +- F x each parameter's range, within its bounds; F < 1 also accepts a start outside "
                   "the bounds, as the angles of some committed units are",
                   "1: the bounds"),
        opt::value("--r-binning", "magnitude|kpc", "r bins uniform in magnitude or in kpc", "magnitude"),
        opt::value("--backend", "auto|cpu|cuda", "where candidates are evaluated (auto: every GPU if there is one)", "auto"),
        opt::value("--variant", "NAME",
                   "the CUDA kernel variant (compressed-f64 with --integrator compressed; modern-f32 fits in single "
                   "precision, and its optimum is then evaluated again with modern-f64)",
                   "modern-f64"),
        opt::value("--integrator", "exact|compressed",
                   "the exact sum, or the compressed line-of-sight quadrature (a different algorithm with a "
                   "controlled error; the optimum is then evaluated again with the exact sum)",
                   "exact"),
        opt::value("--devices", "LIST",
                   "comma-separated CUDA devices (a device named twice holds two evaluators, each with its own stream, "
                   "so that a batch's candidates run side by side), or local-rank: one device per MPI rank (the "
                   "node-local rank mod the device count)",
                   "local-rank under mpirun with several ranks, else every device with double precision"),
        opt::value("--threads", "N", "CPU threads", "all cores"),
        opt::value("--algorithm", "pso|de|cmaes|cmaes-batch|cgd|line|async-ga",
                   "the global search: pagmo2's pso (one batch per generation), de, cmaes (one candidate at a time); "
                   "cmaes-batch (this project's CMA-ES, one batch per generation: spread over every device, each "
                   "candidate prepared while the one before runs; another path than cmaes); or MilkyWay@Home's: cgd "
                   "(conjugate gradient descent: a central-difference gradient, one batch, then a bracketing line search "
                   "along the conjugate direction), line (the gradient, then --population random points along it in one "
                   "batch and a parabola fitted to them), async-ga (the server's asynchronous genetic search: a "
                   "population of the best results, updated as results arrive)",
                   "pso"),
        opt::value("--population", "N",
                   "candidates per generation; line: points per line; async-ga: the results kept; cgd takes none", "24"),
        opt::value("--generations", "N", "generations; cgd and line: iterations; async-ga: rounds", "30"),
        opt::value("--gradient-step", "F", "cgd, line: the central-difference step as a fraction of each box", "1e-4"),
        opt::value("--in-flight", "N", "async-ga: evaluations in flight, generated each round into the free slots",
                   "the population"),
        opt::value("--late", "F",
                   "async-ga: simulate that a share F of the results arrives late (seeded by --seed: reproducible)", "0"),
        opt::value("--lost", "F", "async-ga: simulate that a share F of the results never arrives (seeded by --seed)",
                   "0"),
        opt::value("--max-delay", "N", "async-ga: a late result arrives 1 to N rounds late", "3"),
        opt::value("--seed", "N", "the same seed gives the same fit for any split of the batches", "1"),
        opt::value("--polish", "N",
                   "most evaluations of each local polish (0: none); one starts from the global search's best, one "
                   "from the start vector",
                   "300"),
        opt::flag("--no-polish-from-start", "polish from the global search's best only"),
        opt::value("--hessian-step", "F",
                   "the first finite-difference step as a fraction of each box width; the Hessian then steps one "
                   "sigma of each parameter",
                   "1e-3"),
        opt::flag("--no-uncertainties", "skip the Hessian"),
        opt::flag("--no-integral-cache",
                  "integrate every component of every candidate (by default a component whose parameters an earlier "
                  "candidate had, bit for bit, is taken from that candidate: the same value)"),
        opt::flag("--run-bits",
                  "GPU: evaluate each candidate as mwsep run does, the bits of its likelihood (the stars added on the "
                  "host in star order, skip thresholds on the host); by default the GPU adds the stars (compensated) "
                  "and computes the compressed integral's thresholds, about a rounding apart"),
        opt::value("--checkpoint", "FILE",
                   "write the search's state after every generation (every algorithm but pso); a completed fit removes it",
                   "none"),
        opt::flag("--resume", "continue from --checkpoint"),
        opt::value("--stop-after", "N", "stop after N generations of this run (needs --checkpoint)", "0: none"),
        opt::value("--time-limit", "S",
                   "stop after the generation during which S seconds have passed (exit status 3; with --checkpoint, "
                   "resumable with --resume)",
                   "none"),
        opt::flag("--force", "run even when the estimated time exceeds the limit (2 hours)"),
        opt::value("-o", "FILE", "write the best vector as search_parameters.txt", "none"),
        opt::value("--report", "FILE", "write the JSON report", "none"),
        opt::flag("--json", "print the JSON report on standard output (the text result then goes to standard error)"),
        opt::value("--progress", "FILE", "write the per-generation CSV", "none"),
        opt::value("--work-unit", "NAME", "the work unit's name written in the report", "the -a file"),
        opt::value("--experiment", "NAME", "the experiment's name written in the report", "fit"),
        opt::flag("--quiet", "no estimate and no progress lines"),
        opt::flag("--print-vector",
                  "print the search vector (name, value, lower, upper per line) and exit; -s is not needed")};
}

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

/// Above this estimated time a fit is refused unless --force is given.
constexpr double max_fit_seconds = 2 * 3600.0;

/// The identity of the fit's inputs and settings, for its checkpoint: the files' contents, the binning,
/// the box and what evaluates the candidates (the CPU's value does not depend on the thread count).
std::vector<std::pair<std::string, std::string>> fit_identity(const RunOptions& ro, double box, const std::string& evaluator) {
    const auto hex = [](std::uint64_t h) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
        return std::string(buf);
    };
    const auto file_hash = [&](const std::string& path) { return hex(resume::hash_file(path, resume::fnv1a("", 0))); };
    std::vector<std::pair<std::string, std::string>> id = {{"work-unit", file_hash(ro.astronomy_path)},
                                                           {"stars", file_hash(ro.stars_path)}};
    id.emplace_back("search-parameters", ro.search_path ? file_hash(*ro.search_path) : "none");
    id.emplace_back("r-binning", ro.r_binning == model::RBinning::kpc ? "kpc" : "magnitude");
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", box);
    id.emplace_back("box", b);
    // The evaluator, and the compiler that built it: another build may round differently.
    id.emplace_back("evaluator", evaluator + " (built by " + std::string(__VERSION__) + ")");
    return id;
}

int run_fit_command(const Args& args) {
    harness::CommandHelp help;
    help.about = "Fits the parameters the work unit marks as optimised (optimize_parameter, optimize_weight) within "
                 "their min/max bounds: a global search (pagmo2's, this project's batched CMA-ES, or one of MilkyWay@Home's own), then a local polish (NLopt BOBYQA), then the "
                 "uncertainties from the numerical Hessian of the likelihood at the optimum. It prints its estimate "
                 "first and one line per generation with the time left.";
    help.notes = "Under mpirun, rank 0 drives the search and every rank evaluates its share of each batch.\n"
                 "Example (the CPU, a few minutes): mwsep fit -a data/workunits/tiny/astronomy_parameters.txt -s "
                 "data/stars/tiny.txt --box 0.2 --population 8 --generations 3 --polish 20 --no-uncertainties";
    const harness::Options opt(args, fit_specs(), "mwsep fit", help);
    // Every option is checked, and every output path, before the inputs are read or a device is touched.
    RunOptions ro;
    ro.astronomy_path = opt.require("-a");
    if (opt.has("--print-vector")) {
        // The work unit's search vector with its bounds, for scripts: no second parser of the format.
        if (opt.has("--search-parameters")) ro.search_path = opt.text("--search-parameters");
        const model::AstronomyParameters unit = read_work_unit(ro);
        (void)checked_setup(unit, ro);  // the unit a fit would refuse is refused here too
        const fit::FitSpace space = fit::fit_space(unit, true);
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
    if (opt.has("--stop-after") && fo.checkpoint.empty())
        throw opt.error("--stop-after", "needs --checkpoint FILE: a fit stopped early without one cannot be resumed");
    if (fo.algorithm == "pso" && !fo.checkpoint.empty())
        throw opt.error("--checkpoint", "needs another --algorithm than pso (" + fit::resumable_algorithms() + "): pagmo's "
                                        "pso_gen leaves its swarm's memory (velocities, best positions) out of its saved state");
    if ((fo.algorithm == "de" || fo.algorithm == "cmaes") && fo.population < 5)
        throw opt.error("--population", "must be at least 5 for " + fo.algorithm + ", found '" + opt.text("--population") + "'");
    if (fo.algorithm == fit::cma_batch_name && fo.population < 4)
        throw opt.error("--population", "must be at least 4 for cmaes-batch (its update takes the best half), found '" +
                                            opt.text("--population") + "'");
    if (fo.algorithm == "line" && fo.population < 3)
        throw opt.error("--population", "must be at least 3 for line (the points along each line), found '" +
                                            opt.text("--population") + "'");
    if (fo.algorithm == "async-ga" && fo.population < 4)
        throw opt.error("--population", "must be at least 4 for async-ga (its simplex operator takes four), found '" +
                                            opt.text("--population") + "'");
    if (fo.algorithm == "cgd" && opt.has("--population"))
        throw opt.error("--population", "applies to no part of cgd (one point, its gradient and a line search)");
    // The thesis searches' options, each refused where its algorithm is not the one running.
    const auto only_for = [&](const char* option, std::initializer_list<const char*> algorithms) {
        if (!opt.has(option)) return;
        for (const char* a : algorithms)
            if (fo.algorithm == a) return;
        std::string names;
        for (const char* a : algorithms) names += (names.empty() ? "" : " or ") + std::string(a);
        throw opt.error(option, "applies to --algorithm " + names + " only");
    };
    only_for("--gradient-step", {"cgd", "line"});
    for (const char* o : {"--in-flight", "--late", "--lost", "--max-delay"}) only_for(o, {"async-ga"});
    fo.gradient_step = opt.real("--gradient-step", 1e-4);
    if (!(fo.gradient_step > 0 && fo.gradient_step <= 0.1))
        throw opt.error("--gradient-step", "must lie in (0, 0.1], found '" + opt.text("--gradient-step") + "'");
    fo.in_flight = static_cast<unsigned>(opt.integer("--in-flight", 0, 1, 100000));
    fo.late_fraction = opt.real("--late", 0.0);
    fo.lost_fraction = opt.real("--lost", 0.0);
    if (!(fo.late_fraction >= 0 && fo.late_fraction <= 1)) throw opt.error("--late", "must lie in [0, 1], found '" + opt.text("--late") + "'");
    if (!(fo.lost_fraction >= 0 && fo.lost_fraction < 1)) throw opt.error("--lost", "must lie in [0, 1), found '" + opt.text("--lost") + "'");
    if (fo.late_fraction + fo.lost_fraction > 1) throw opt.error("--late", "and --lost together must be at most 1");
    fo.max_delay = static_cast<unsigned>(opt.integer("--max-delay", 3, 1, 1000));
    const double box = opt.real("--box", 1.0);
    if (!(box > 0 && box <= 1)) throw opt.error("--box", "must lie in (0, 1], found '" + opt.text("--box") + "'");
    const std::string backend = opt.choice("--backend", {"auto", "cpu", "cuda"}, "auto");
    // Options of the GPU given to the CPU would be ignored without a word.
    if (backend == "cpu")
        for (const char* gpu_only : {"--variant", "--devices"})
            if (opt.has(gpu_only)) throw opt.error(gpu_only, "applies to --backend cuda or auto only");
    const bool compressed = opt.choice("--integrator", {"exact", "compressed"}, "exact") == "compressed";
    const std::string variant = opt.text("--variant", compressed ? "compressed-f64" : "modern-f64");
    if (compressed != (variant.rfind("compressed-", 0) == 0))
        throw opt.error("--variant", "'" + variant + "' does not match --integrator " + (compressed ? "compressed" : "exact"));
    // A single-precision variant: the optimum it ends on is evaluated again in double precision.
    bool single_precision = false;
#if defined(MWSEP_WITH_CUDA)
    if (opt.has("--variant")) try {
            single_precision = !cuda::find_variant(variant).kernels.double_precision;
        } catch (const std::exception& e) {
            throw opt.error("--variant", e.what());
        }
#else
    if (opt.has("--variant")) throw opt.error("--variant", "this build has no CUDA backend, so no kernel variant to choose");
#endif
    const std::vector<int> devices = parse_devices(opt);
    const int threads = static_cast<int>(opt.integer("--threads", 0, 0, INT_MAX));
    {
        // Before any work: an output is never an input, nor the file of another output, and can be written.
        std::vector<harness::NamedPath> inputs{{"-a", ro.astronomy_path}, {"-s", ro.stars_path}};
        if (ro.search_path) inputs.push_back({"--search-parameters", *ro.search_path});
        if (opt.has("--truth")) inputs.push_back({"--truth", opt.text("--truth")});
        if (opt.has("--reference")) inputs.push_back({"--reference", opt.text("--reference")});
        std::vector<harness::NamedPath> outputs;
        for (const char* o : {"-o", "--report", "--progress", "--checkpoint"})
            if (opt.has(o)) outputs.push_back({o, opt.text(o)});
        harness::check_outputs("mwsep fit", inputs, outputs);
    }
    const bool quiet = opt.has("--quiet");
    const double time_limit = opt.real("--time-limit", std::numeric_limits<double>::infinity());
    if (!(time_limit > 0)) throw opt.error("--time-limit", "must be positive, found '" + opt.text("--time-limit") + "'");
    const harness::Deadline deadline(time_limit);  // the whole fit, counted from here

    const fit::RankSession ranks;
    try {
        // One GPU per rank: with --devices local-rank, or by default when several ranks run under Open MPI's
        // mpirun, each rank takes the device of its node-local rank (mod the device count).
        const char* local_rank_env = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        const bool per_rank_device = opt.text("--devices", "") == "local-rank" ||
                                     (!opt.has("--devices") && ranks.size() > 1 && local_rank_env != nullptr);
        const int local_rank = local_rank_env ? std::atoi(local_rank_env) : 0;
        fit::FitData data;
        data.work_unit = read_work_unit(ro);
        ro.force = opt.has("--force");
        const geometry::IntegrationSetup start_setup = checked_setup(data.work_unit, ro);  // bad values and sizes stop here
        const fit::FitSpace full = [&] {
            try {
                return fit::fit_space(data.work_unit, box < 1);
            } catch (const model::InputError& e) {
                // A start outside its bounds (the angles of some committed units): a box around the start is the
                // way to fit it, and the message says so.
                const fit::FitSpace loose = fit::fit_space(data.work_unit, true);
                for (std::size_t i = 0; i < loose.size(); ++i)
                    if (loose.start[i] < loose.lower[i] || loose.start[i] > loose.upper[i])
                        throw std::runtime_error(std::string(e.what()) +
                                                 "; to fit a unit whose start lies outside its bounds, search a box "
                                                 "around the start: --box F (F < 1, e.g. --box 0.2: start +- 0.2 x each "
                                                 "parameter's range)");
                throw;
            }
        }();
        const fit::FitSpace space = box < 1 ? fit::narrowed(full, box) : full;
        data.stars = model::read_stars(ro.stars_path);
        data.r_binning = ro.r_binning;
        data.compressed = compressed;
        data.integral_cache = !opt.has("--no-integral-cache");
        data.device_work = !opt.has("--run-bits");
        std::optional<std::vector<double>> truth, reference;
        for (const char* option : {"--truth", "--reference"}) {
            if (!opt.has(option)) continue;
            auto& v = std::string(option) == "--truth" ? truth : reference;
            v = model::read_search_parameters(opt.text(option)).values;
            if (v->size() != space.size())
                throw opt.error(option, "has " + std::to_string(v->size()) + " values; the work unit optimises " +
                                            std::to_string(space.size()));
        }

        const bool gpu = backend == "cuda" || (backend == "auto" && fit::have_gpu_evaluator());
        std::unique_ptr<fit::BatchEvaluator> local;
        std::optional<std::vector<int>> exact_devices;  // set when the candidates run on GPUs
        if (gpu) {
            try {
                const std::vector<int> chosen =
                    per_rank_device ? std::vector<int>{fit::device_for_local_rank(local_rank, variant)} : devices;
                // The optimum's exact re-evaluation (below) is made while this evaluator lives: planned now.
                const std::vector<std::string> later =
                    compressed || single_precision ? std::vector<std::string>{"modern-f64"} : std::vector<std::string>{};
                local = fit::make_gpu_evaluator(data, variant, chosen, later);
                exact_devices = chosen;
            } catch (const std::exception& e) {
                if (backend == "cuda") throw;
                std::fprintf(stderr, "mwsep fit: not on a GPU (%s); evaluating on the CPU\n", e.what());
            }
        }
        if (!local) local = fit::make_cpu_evaluator(data, threads);
        double planned_evaluations = 0;
        {
            // What the fit will cost, before it starts: every evaluation integrates the whole unit once and
            // sums the likelihood over the catalogue (on the CPU the stars can cost more than the integral).
            const double n = static_cast<double>(space.size());
            fit::ThesisSettings ts;
            ts.algorithm = fo.algorithm, ts.population = fo.population, ts.in_flight = fo.in_flight;
            const double global = fit::is_thesis_algorithm(fo.algorithm)
                                      ? fit::thesis_evaluations_per_generation(ts, space.size()) * (double(fo.generations) + 1)
                                  : fo.algorithm == fit::cma_batch_name  // the start, then a batch per generation
                                      ? double(fo.population) * double(fo.generations) + 1
                                      : double(fo.population) * (double(fo.generations) + 1);
            const double evaluations = global + (fo.polish_from_start ? 2.0 : 1.0) * fo.polish_evaluations +
                                       (fo.uncertainties ? 3 * n * n + 4 * n + 1 : 0);
            const double points = work_size(start_setup.model).points;
            const bool on_gpu = local->description().rfind("CPU", 0) != 0;
            const double rate = on_gpu ? modern_gpu_points_per_second
                                       : fast_points_per_second_per_thread * cpu::resolve_threads(threads);
            const double star_seconds =
                on_gpu ? 0.0
                       : static_cast<double>(data.stars.size()) /
                             (likelihood_stars_per_second_per_thread * cpu::resolve_threads(threads));
            const double seconds = evaluations * (points / rate + star_seconds) / std::max(1, ranks.size());
            planned_evaluations = evaluations;
            if (ranks.rank() == 0 && !quiet)
                std::fprintf(stderr, "mwsep fit: about %.3g evaluations of %.3g quadrature points each; about %s on %s%s\n",
                             evaluations, points, harness::duration_text(seconds).c_str(), on_gpu ? "the GPU" : "the CPU",
                             seconds > time_limit ? "; --time-limit stops it before" : "");
            if (seconds > max_fit_seconds && !opt.has("--force"))
                throw std::runtime_error("the fit would take about " + std::to_string(seconds / 3600).substr(0, 6) +
                                         " h (" + std::to_string(static_cast<long long>(evaluations)) +
                                         " evaluations: --population x (--generations + 1), the polishes and the Hessian), "
                                         "above the limit of " + std::to_string(max_fit_seconds / 3600).substr(0, 4) +
                                         " h: lower --population or --generations, or give --force");
        }

        if (ranks.rank() != 0) {
            fit::serve_batches(*local);
            return 0;
        }
        std::unique_ptr<fit::BatchEvaluator> spread = fit::make_rank_evaluator(*local);
        fit::BatchEvaluator& evaluator = spread ? *spread : *local;

        fo.identity = fit_identity(ro, box, local->description().rfind("CPU", 0) == 0 ? (compressed ? "cpu compressed" : "cpu") : "cuda " + variant);
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
        // A start without a finite likelihood is refused as run refuses it: the fit would compare penalties.
        if (!std::isfinite(ctx.start_likelihood)) {
            fit::end_batches();
            throw std::runtime_error("the start vector (" + (ro.search_path ? *ro.search_path : ro.astronomy_path) +
                                     ") has no finite likelihood on " + ro.stars_path + ": " +
                                     fit::why_not_finite(data, space.start) + "; a fit needs a start that run can evaluate");
        }
        // The truth's own likelihood on this catalogue: a fit that ends below it has not found the maximum.
        if (truth) ctx.truth_likelihood = evaluator.evaluate({*truth})[0];
        ctx.integrator = compressed ? "compressed" : "exact";
        if (reference) {
            ctx.reference = reference;
            ctx.reference_file = opt.text("--reference");
            ctx.reference_likelihood = evaluator.evaluate({*reference})[0];
        }
        if (!quiet)
            std::fprintf(stderr, "mwsep fit: %zu parameters, %zu stars, %s on %s; start L = %.10g\n", space.size(),
                         data.stars.size(), fo.algorithm.c_str(), ctx.evaluator.c_str(), ctx.start_likelihood);
        fit::FitResult result;
        bool stopped_by_limit = false;
        fo.stop_requested = [&] { return stopped_by_limit = deadline.left_s() <= 0; };
        // The time left, from this run's rate of evaluations so far and the evaluations the estimate counted.
        std::optional<std::pair<double, long long>> first;  // (seconds, evaluations) at the first record
        const auto time_left = [&](const fit::GenerationRecord& g) -> std::string {
            if (!first) first = std::make_pair(g.seconds, g.evaluations);
            const double seconds = g.seconds - first->first;
            const double done = static_cast<double>(g.evaluations - first->second);
            const double left = planned_evaluations - static_cast<double>(g.evaluations);
            if (!(done > 0 && seconds > 0 && left > 0)) return "";
            return ", about " + harness::duration_text(seconds / done * left) + " left";
        };
        try {
            result = fit::run_fit(space, evaluator, fo, data.stars.size(), [&](const fit::GenerationRecord& g) {
                if (!quiet)
                    std::fprintf(stderr, "generation %u/%u  evaluations %lld  best L %.12g  %.2f s%s\n", g.generation,
                                 fo.generations, g.evaluations, g.best, g.seconds, time_left(g).c_str());
            });
        } catch (...) {
            fit::end_batches();
            throw;
        }
        fit::end_batches();
        if (!std::isfinite(result.likelihood) || !std::isfinite(result.global_likelihood))
            throw std::runtime_error("the fit found no candidate with a finite likelihood (" +
                                     std::to_string(result.invalid_evaluations) + " of " + std::to_string(result.evaluations) +
                                     " evaluations invalid); nothing to report");

        // The result as text, on standard output; with --json on standard error, the report taking its place.
        std::FILE* const text = opt.has("--json") ? stderr : stdout;
        std::fprintf(text, "likelihood %.17g (global search %.17g, start %.17g", result.likelihood, result.global_likelihood,
                    ctx.start_likelihood);
        if (truth) std::fprintf(text, ", truth %.17g", ctx.truth_likelihood);
        std::fprintf(text, ")\n");
        for (const auto& p : result.polishes)
            std::fprintf(text, "polish from the %s: %.17g after %lld evaluations\n", p.from.c_str(), p.likelihood, p.evaluations);
        for (std::size_t i = 0; i < space.size(); ++i) {
            // An uncertainty is printed only where one was computed; otherwise the line says why not.
            char sigma[96];
            if (std::isfinite(result.sigma[i])) std::snprintf(sigma, sizeof sigma, " +- %.3g", result.sigma[i]);
            else if (!fo.uncertainties || !result.completed) std::snprintf(sigma, sizeof sigma, " (uncertainty not computed)");
            else std::snprintf(sigma, sizeof sigma, " (no uncertainty: the Hessian is not negative definite here)");
            std::fprintf(text, "%-16s %.12g%s%s\n", space.names[i].c_str(), result.best[i], sigma,
                        truth ? (" (true " + std::to_string((*truth)[i]) + ")").c_str() : "");
        }
        std::fprintf(text, "evaluations %lld (global %lld, polish %lld, Hessian %lld), %.3f s%s\n", result.evaluations,
                    result.global_evaluations, result.polish_evaluations, result.hessian_evaluations, result.seconds,
                    result.completed ? "" : " (stopped early: resume with --resume)");
        if (!result.stopped_by.empty())
            std::printf("the global search ended after %u of %u generations: %s\n", result.generations, fo.generations,
                        result.stopped_by.c_str());
        if (fo.uncertainties && result.completed) {
            // Which combinations of parameters the likelihood does not curve along (eigenvectors by parameter).
            for (const std::size_t k : fit::flat_directions(result)) {
                std::printf("flat direction (scaled Fisher eigenvalue %.3g):", result.scaled_fisher_eigenvalues[k]);
                for (std::size_t i = 0; i < space.size(); ++i)
                    if (std::abs(result.scaled_fisher_eigenvectors[k][i]) >= 0.1)
                        std::printf(" %+.2f %s", result.scaled_fisher_eigenvectors[k][i], space.names[i].c_str());
                std::printf("\n");
            }
        }
        if (result.integral_work) {
            const auto& w = *result.integral_work;
            std::fprintf(text, "integrals: %lld candidates integrated whole, %lld with their new streams only, %lld entirely from "
                        "the cache (%lld component integrals computed, %lld reused)\n",
                        w.full, w.partial, w.none, w.components, w.reused);
        }
        if (compressed) {
            // The optimum again with the exact sum, so that both likelihoods stand side by side; the reference
            // vector with it (one batch).
            const auto t_exact = std::chrono::steady_clock::now();
            fit::FitData exact = data;
            exact.compressed = false;
            const auto exact_evaluator = exact_devices ? fit::make_gpu_evaluator(exact, "modern-f64", *exact_devices)
                                                       : fit::make_cpu_evaluator(exact, threads);
            fit::Batch batch{result.best};
            if (reference) batch.push_back(*reference);
            const auto l = exact_evaluator->evaluate(batch);
            const double l_exact = l[0];
            ctx.exact_likelihood = l_exact;
            if (reference) ctx.reference_exact_likelihood = l[1];
            ctx.exact_check_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_exact).count();
            std::fprintf(text, "likelihood at the optimum: compressed quadrature %.17g, exact sum %.17g (difference %.3g)\n",
                        result.likelihood, l_exact, result.likelihood - l_exact);
            if (reference)
                std::printf("likelihood of the reference (%s): exact sum %.17g (compressed quadrature %.17g); the fit's "
                            "optimum is %s by %.3g\n",
                            ctx.reference_file.c_str(), l[1], ctx.reference_likelihood, l_exact >= l[1] ? "above" : "below",
                            std::abs(l_exact - l[1]));
        } else if (reference) {
            std::printf("likelihood of the reference (%s): %.17g; the fit's optimum is %s by %.3g\n", ctx.reference_file.c_str(),
                        ctx.reference_likelihood, result.likelihood >= ctx.reference_likelihood ? "above" : "below",
                        std::abs(result.likelihood - ctx.reference_likelihood));
        }
        if (single_precision && exact_devices) {
            // The same optimum in double precision (modern-f64 on the same devices), beside the fit's own value.
            const auto f64 = fit::make_gpu_evaluator(data, "modern-f64", *exact_devices);
            fit::Batch batch{result.best};
            if (reference) batch.push_back(*reference);
            const auto l = f64->evaluate(batch);
            const double l_f64 = l[0];
            ctx.exact_likelihood = l_f64;
            if (reference) ctx.reference_exact_likelihood = l[1];
            std::fprintf(text, "likelihood at the optimum: single precision (%s) %.17g, double precision (modern-f64) %.17g "
                        "(difference %.3g)\n",
                        variant.c_str(), result.likelihood, l_f64, result.likelihood - l_f64);
        }
        if (opt.has("-o")) fit::write_search_parameters(opt.text("-o"), "fit", result.best);
        if (opt.has("--report")) fit::write_report(opt.text("--report"), space, result, ctx);
        if (opt.has("--json")) fit::write_report(std::cout, space, result, ctx);
        if (opt.has("--progress")) fit::write_progress(opt.text("--progress"), result, ctx);
        // A completed fit's checkpoint has done its work: left behind, the same command would resume a finished
        // search. Removed only once every output is written, so that a kill before then resumes to the same result.
        if (result.completed && !fo.checkpoint.empty()) std::remove(fo.checkpoint.c_str());
        if (stopped_by_limit) {
            std::fprintf(stderr, "mwsep fit: stopped at --time-limit %g s after %u of %u generations%s\n", time_limit,
                         result.generations, fo.generations,
                         fo.checkpoint.empty() ? " (with --checkpoint, any algorithm but pso, a stopped fit can be resumed)"
                                               : "; the same command with --resume continues it");
            return harness::exit_status::not_done;
        }
        return 0;
    } catch (const std::exception& e) {
        // Under mpirun a rank that leaves on an error ends the whole job (RankSession's destructor calls
        // MPI_Abort), before the program's own message would be printed: print it here first.
        if (ranks.size() > 1) {
            std::fprintf(stderr, "mwsep fit: error on rank %d of %d: %s\n", ranks.rank(), ranks.size(), e.what());
            std::fflush(stderr);
        }
        throw;
    }
}

}  // namespace

int command_fit(const Args& args) { return run_fit_command(args); }
std::string fit_unavailable() { return {}; }
#else
std::string fit_unavailable() {
    return "needs a build with the fit: configure with pagmo2 and NLopt installed (libpagmo-dev, libnlopt-dev) and "
           "MWSEP_FIT=ON";
}
int command_fit(const Args& args) {
    (void)args;
    throw std::runtime_error("this build has no fit: configure with pagmo2 and NLopt installed (libpagmo-dev, "
                             "libnlopt-dev) and MWSEP_FIT=ON");
}
#endif

}  // namespace mwsep::app
