#include "app/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>

#include "app/evaluate.hpp"
#include "app/json.hpp"
#include "app/progress_bar.hpp"
#include "cpu/integrators.hpp"
#include "generate/catalogue.hpp"
#include "model/astronomy_parameters.hpp"
#include "model/build_model.hpp"
#include "model/input_error.hpp"
#include "model/search_parameters.hpp"
#include "model/stars.hpp"

#if defined(MWSEP_WITH_CUDA)
#include "cuda/commands.hpp"
#endif

namespace mwsep::app {
namespace {

/// Parses an integer option value strictly.
long long parse_int_option(const std::string& text, const std::string& option) {
    try {
        std::size_t used = 0;
        const long long v = std::stoll(text, &used);
        if (used == text.size()) return v;
    } catch (const std::exception&) {
    }
    throw model::InputError("command line", 0, option, "expected an integer, found '" + text + "'");
}

/// A tiny option parser: `--name value` options, `--flag` switches, and `-p v1 ... vN` value lists.
class Options {
public:
    Options(const Args& args, const std::map<std::string, bool>& known, const std::string& command) {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            const auto it = known.find(a);
            if (it == known.end())
                throw std::invalid_argument("mwsep " + command + ": unknown option '" + a + "' (see --help)");
            if (a == "-p") {
                // Values run until the next option; negative numbers are values, not options.
                std::vector<std::string> values;
                while (i + 1 < args.size() && !(args[i + 1].rfind("--", 0) == 0 || known.count(args[i + 1])))
                    values.push_back(args[++i]);
                lists_[a] = values;
                seen_[a] = "";
                continue;
            }
            if (it->second) {
                if (i + 1 >= args.size()) throw std::invalid_argument("mwsep " + command + ": option " + a + " needs a value");
                seen_[a] = args[++i];
            } else {
                seen_[a] = "";
            }
        }
    }
    bool has(const std::string& k) const { return seen_.count(k) != 0; }
    std::string get(const std::string& k, const std::string& fallback = "") const {
        const auto it = seen_.find(k);
        return it == seen_.end() ? fallback : it->second;
    }
    std::string require(const std::string& k, const std::string& command) const {
        if (!has(k)) throw std::invalid_argument("mwsep " + command + ": missing required option " + k + " (see --help)");
        return get(k);
    }
    long long integer(const std::string& k, long long fallback) const {
        if (!has(k)) return fallback;
        return parse_int_option(get(k), k);
    }
    const std::vector<std::string>& list(const std::string& k) const { return lists_.at(k); }

private:
    std::map<std::string, std::string> seen_;
    std::map<std::string, std::vector<std::string>> lists_;
};

const std::map<std::string, bool> input_options = {
    {"-a", true}, {"-s", true}, {"--search-parameters", true}, {"--np", true}, {"-p", false},
    {"--r-binning", true}, {"--help", false}, {"-h", false}};

/// Fills the input part of RunOptions shared by run, generate and bench-cpu.
RunOptions input_run_options(const Options& opt, const std::string& command, bool need_stars) {
    RunOptions o;
    o.astronomy_path = opt.require("-a", command);
    if (need_stars) o.stars_path = opt.require("-s", command);
    if (opt.has("--search-parameters")) o.search_path = opt.get("--search-parameters");
    if (opt.has("--np") != opt.has("-p"))
        throw std::invalid_argument("mwsep " + command + ": --np N and -p v1 ... vN go together");
    if (opt.has("--np"))
        o.search_vector = model::search_vector_from_arguments(static_cast<int>(opt.integer("--np", 0)), opt.list("-p"));
    const std::string binning = opt.get("--r-binning", "magnitude");
    if (binning == "magnitude") o.r_binning = model::RBinning::magnitude;
    else if (binning == "kpc") o.r_binning = model::RBinning::kpc;
    else throw std::invalid_argument("mwsep " + command + ": --r-binning must be magnitude or kpc, found '" + binning + "'");
    return o;
}

const char* input_help =
    "  -a FILE                    astronomy_parameters.txt (the work unit)\n"
    "  --search-parameters FILE   2009 search_parameters.txt: the parameter vector\n"
    "  --np N -p v1 ... vN        the parameter vector on the command line (instead of the file)\n"
    "  --r-binning magnitude|kpc  r bins uniform in magnitude (default, as the thesis's CUDA code) or in kpc\n"
    "                             (the December 2009 CPU code)\n";

std::string r_binning_name(model::RBinning b) { return b == model::RBinning::kpc ? "kpc" : "magnitude"; }

std::size_t quadrature_points(const geometry::IntegrationSetup& s) {
    std::size_t n = 0;
    for (const auto& a : s.areas) n += a.cells() * a.r.n_r * a.r.n_conv;
    return n;
}

}  // namespace

int command_run(const Args& args) {
    auto known = input_options;
    known.insert({{"--backend", true}, {"--cpu", true}, {"--threads", true}, {"--json", false},
                  {"--variant", true}, {"--device", true}});
    const Options opt(args, known, "run");
    if (opt.has("--help") || opt.has("-h")) {
        std::printf(
            "usage: mwsep run -a astronomy_parameters.txt -s stars.txt [options]\n%s"
            "  -s FILE                    star catalogue (count, then 'l b r' per line)\n"
            "  --backend cpu|cuda         where to compute (default cpu)\n"
            "  --cpu reference|fast       CPU integrator (default fast)\n"
            "  --threads N                threads of the fast CPU integrator (default: all cores)\n"
            "  --variant NAME             CUDA kernel variant (default shared-fast-unrolled-f64; see 'mwsep variants')\n"
            "  --device N                 CUDA device (default: the fastest one with double precision)\n"
            "  --json                     print one JSON object instead of text\n",
            input_help);
        return 0;
    }
    RunOptions o = input_run_options(opt, "run", true);
    o.backend = opt.get("--backend", "cpu");
    o.cpu_integrator = opt.get("--cpu", "fast");
    o.threads = static_cast<int>(opt.integer("--threads", 0));
    if (o.threads < 0) throw std::invalid_argument("mwsep run: --threads must be 0 (all cores) or more");
    o.variant = opt.get("--variant", o.variant);
    o.device = static_cast<int>(opt.integer("--device", -1));

    const auto t0 = std::chrono::steady_clock::now();
    const Inputs in = load_inputs(o);
    const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ProgressBar bar("integrating");
    RunResult r = evaluate(in, o, [&](std::size_t done, std::size_t total) { bar.update(done, total); });
    r.load_seconds = load_seconds;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const std::string engine = o.backend == "cpu" ? "cpu " + o.cpu_integrator : "cuda " + o.variant;
    if (opt.has("--json")) {
        JsonObject j(std::cout);
        j.number("background_integral", r.integrals.background)
            .numbers("stream_integrals", r.integrals.streams)
            .number("likelihood", r.likelihood.likelihood)
            .number("background_likelihood", r.likelihood.background_likelihood)
            .numbers("stream_only_likelihoods", r.likelihood.stream_only)
            .integer("number_stars", static_cast<long long>(in.stars.size()))
            .integer("zero_probability_stars", r.likelihood.zero_probability_stars)
            .number("seconds", wall);
        auto t = j.object("timings");
        t.number("load", r.load_seconds).number("integral", r.integral_seconds).number("likelihood", r.likelihood_seconds);
        t.close();
        auto s = j.object("settings");
        s.string("astronomy_parameters", o.astronomy_path)
            .string("stars", o.stars_path)
            .string("backend", o.backend)
            .string("engine", engine)
            .string("r_binning", r_binning_name(o.r_binning))
            .string("device", r.device);
        if (o.backend == "cpu" && o.cpu_integrator == "fast") s.integer("threads", cpu::resolve_threads(o.threads));
        s.close();
        j.close();
        std::cout << '\n';
        return 0;
    }
    std::printf("work unit               %s\n", o.astronomy_path.c_str());
    std::printf("stars                   %s (%zu)\n", o.stars_path.c_str(), in.stars.size());
    std::printf("computed by             %s on %s\n", engine.c_str(), r.device.c_str());
    std::printf("r binning               %s\n", r_binning_name(o.r_binning).c_str());
    std::printf("background_integral     %.17g\n", r.integrals.background);
    for (std::size_t s = 0; s < r.integrals.streams.size(); ++s)
        std::printf("stream_integral[%zu]      %.17g\n", s + 1, r.integrals.streams[s]);
    std::printf("background_likelihood   %.17g\n", r.likelihood.background_likelihood);
    for (std::size_t s = 0; s < r.likelihood.stream_only.size(); ++s)
        std::printf("stream_only_likelihood[%zu] %.17g\n", s + 1, r.likelihood.stream_only[s]);
    std::printf("zero_probability_stars  %lld\n", r.likelihood.zero_probability_stars);
    std::printf("likelihood              %.17g\n", r.likelihood.likelihood);
    std::printf("seconds                 %.3f (load %.3f, integral %.3f, likelihood %.3f)\n", wall, r.load_seconds,
                r.integral_seconds, r.likelihood_seconds);
    return 0;
}

int command_generate(const Args& args) {
    auto known = input_options;
    known.insert({{"-o", true}, {"--count", true}, {"--seed", true}, {"--threads", true}, {"--envelope", true}});
    const Options opt(args, known, "generate");
    if (opt.has("--help") || opt.has("-h")) {
        std::printf(
            "usage: mwsep generate -a astronomy_parameters.txt -o stars.txt [options]\n%s"
            "  -o FILE                    where to write the catalogue\n"
            "  --count N                  number of stars (default 100000)\n"
            "  --seed N                   random seed (default 1); the same seed gives the same file\n"
            "  --envelope MUxNUxR         rejection-sampling envelope grid (default 160x16x70)\n"
            "  --threads N                threads for the envelope (default: all cores; no effect on the result)\n",
            input_help);
        return 0;
    }
    const RunOptions o = input_run_options(opt, "generate", false);
    const std::string out_path = opt.require("-o", "generate");
    model::AstronomyParameters ap = model::read_astronomy_parameters(o.astronomy_path);
    if (o.search_path) model::apply_search_vector(ap, model::read_search_parameters(*o.search_path));
    if (o.search_vector) model::apply_search_vector(ap, *o.search_vector);
    const auto setup = geometry::make_setup(model::build_model(ap, o.r_binning));
    generate::Options g;
    const long long count = opt.integer("--count", 100000);
    if (count <= 0) throw std::invalid_argument("mwsep generate: --count must be positive");
    g.count = static_cast<std::size_t>(count);
    const long long seed = opt.integer("--seed", 1);
    if (seed < 0) throw std::invalid_argument("mwsep generate: --seed must be 0 or more");
    g.seed = static_cast<std::uint64_t>(seed);
    g.threads = static_cast<int>(opt.integer("--threads", 0));
    if (opt.has("--envelope")) {
        int a = 0, b = 0, c = 0;
        char tail = 0;
        if (std::sscanf(opt.get("--envelope").c_str(), "%dx%dx%d%c", &a, &b, &c, &tail) != 3 || a < 1 || b < 1 || c < 1)
            throw std::invalid_argument("mwsep generate: --envelope must look like 160x16x70 (positive sizes)");
        g.envelope_mu = a, g.envelope_nu = b, g.envelope_r = c;
    }
    const auto report = generate::generate_catalogue(setup, g);
    std::ofstream out(out_path);
    if (!out) throw std::runtime_error("cannot write " + out_path);
    model::write_stars(out, report.stars);
    out.close();
    if (!out) throw std::runtime_error("error while writing " + out_path);
    std::fprintf(stderr, "mwsep generate: wrote %zu stars to %s (seed %llu; background %zu", report.stars.size(),
                 out_path.c_str(), static_cast<unsigned long long>(g.seed), report.per_component[0]);
    for (std::size_t c = 1; c < report.per_component.size(); ++c)
        std::fprintf(stderr, ", stream %zu %zu", c, report.per_component[c]);
    std::fprintf(stderr, "; %zu proposals, %zu above the envelope)\n", report.proposals, report.envelope_exceeded);
    return 0;
}

int command_bench_cpu(const Args& args) {
    auto known = input_options;
    known.insert({{"--repeats", true}, {"--threads", true}, {"--integrators", true}, {"--csv", true},
                  {"--work-unit", true}});
    const Options opt(args, known, "bench-cpu");
    if (opt.has("--help") || opt.has("-h")) {
        std::printf(
            "usage: mwsep bench-cpu -a astronomy_parameters.txt [options]\n%s"
            "  --repeats N                timed repeats per configuration (default 3; the median is reported)\n"
            "  --threads N                thread count of the multithreaded configuration (default: all cores)\n"
            "  --integrators LIST         comma-separated subset of reference,fast1,fastN (default all three)\n"
            "  --work-unit NAME           name written in the CSV (default: the file name)\n"
            "  --csv FILE                 append one row per repeat to FILE (header written if new)\n",
            input_help);
        return 0;
    }
    RunOptions o = input_run_options(opt, "bench-cpu", false);
    model::AstronomyParameters ap = model::read_astronomy_parameters(o.astronomy_path);
    if (o.search_path) model::apply_search_vector(ap, model::read_search_parameters(*o.search_path));
    if (o.search_vector) model::apply_search_vector(ap, *o.search_vector);
    const auto setup = geometry::make_setup(model::build_model(ap, o.r_binning));
    const int repeats = static_cast<int>(opt.integer("--repeats", 3));
    if (repeats < 1) throw std::invalid_argument("mwsep bench-cpu: --repeats must be at least 1");
    const int all = cpu::resolve_threads(static_cast<int>(opt.integer("--threads", 0)));
    const std::string which = opt.get("--integrators", "reference,fast1,fastN");
    const std::string wu = opt.get("--work-unit", o.astronomy_path);
    const std::size_t points = quadrature_points(setup);
    const std::string cpu_name = host_cpu_name();

    std::ofstream csv;
    if (opt.has("--csv")) {
        const bool fresh = !std::ifstream(opt.get("--csv")).good();
        csv.open(opt.get("--csv"), std::ios::app);
        if (!csv) throw std::runtime_error("cannot write " + opt.get("--csv"));
        if (fresh) csv << "integrator,threads,work_unit,repeat,seconds,quadrature_points,points_per_second,"
                          "points_per_second_per_core,background_integral,host_cpu\n";
    }
    std::printf("%-10s %7s %12s %14s %18s\n", "integrator", "threads", "median_s", "points/s", "points/s/core");
    struct Config { std::string name; int threads; };
    std::vector<Config> configs;
    if (which.find("reference") != std::string::npos) configs.push_back({"reference", 1});
    if (which.find("fast1") != std::string::npos) configs.push_back({"fast", 1});
    if (which.find("fastN") != std::string::npos) configs.push_back({"fast", all});
    for (const auto& c : configs) {
        std::vector<double> times;
        for (int rep = 0; rep < repeats; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto integrals = c.name == "reference" ? cpu::integrate_reference(setup)
                                                         : cpu::integrate_fast(setup, c.threads);
            const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            times.push_back(sec);
            if (csv.is_open()) {
                char row[512];
                std::snprintf(row, sizeof row, "%s,%d,%s,%d,%.6f,%zu,%.6g,%.6g,%.17g,\"%s\"\n", c.name.c_str(), c.threads,
                              wu.c_str(), rep, sec, points, points / sec, points / sec / c.threads, integrals.background,
                              cpu_name.c_str());
                csv << row;
            }
        }
        std::sort(times.begin(), times.end());
        const double median = times[times.size() / 2];
        std::printf("%-10s %7d %12.4f %14.4g %18.4g\n", c.name.c_str(), c.threads, median, points / median,
                    points / median / c.threads);
    }
    std::printf("quadrature points per evaluation: %zu (all components together); CPU: %s\n", points, cpu_name.c_str());
    return 0;
}

int command_variants(const Args& args) {
#if defined(MWSEP_WITH_CUDA)
    return cuda::command_variants(args);
#else
    (void)args;
    throw std::runtime_error("this build has no CUDA backend (configure with a CUDA compiler to list kernel variants)");
#endif
}

int command_bench(const Args& args) {
#if defined(MWSEP_WITH_CUDA)
    return cuda::command_bench(args);
#else
    (void)args;
    throw std::runtime_error("this build has no CUDA backend (configure with a CUDA compiler to benchmark kernels)");
#endif
}

}  // namespace mwsep::app

