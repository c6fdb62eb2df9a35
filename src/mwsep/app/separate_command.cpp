#include "mwsep/app/separate_command.hpp"

#include <chrono>
#include <climits>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "harness/atomic_file.hpp"
#include "harness/csv.hpp"
#include "harness/json.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "mwsep/app/evaluate.hpp"
#include "mwsep/app/input_options.hpp"
#include "mwsep/cpu/compressed.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cpu/thread_pool.hpp"
#include "mwsep/geometry/sky.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/separate/separation.hpp"

namespace mwsep::app {
namespace {

namespace opt = harness::option;

/// The options of `mwsep separate`.
std::vector<harness::OptionSpec> separate_specs() {
    return mwsep::app::input_options(
        true,
        {opt::value("--integrator", "exact|compressed",
                    "the integrals by the fast exact CPU integrator or by the compressed line-of-sight quadrature (a "
                    "different algorithm with a controlled error; much faster on the full-size units)",
                    "exact"),
         opt::value("--threads", "N", "CPU threads (the result does not depend on it)", "all cores"),
         opt::csv("one row per star, in catalogue order: star, l, b, r, mu, nu, p_background, p_stream1, ..., "
                  "most_likely (and true_component with --labels)"),
         opt::value("--digits", "N", "significant digits of the CSV's numbers (1 to 17)", "as many as read back exactly"),
         opt::value("--labels", "FILE",
                    "the stars' true components (mwsep generate --labels): the summary adds the stars assigned correctly "
                    "beside the number the model expects",
                    "none"),
         opt::flag("--json", "print the summary as one JSON object on standard output")});
}

/// The per-star CSV: every number in the shortest form that reads back exactly, or with @p digits significant
/// digits (0: exact).
void write_csv(std::ostream& out, const model::StarCatalogue& stars, const separate::Separation& s,
               const model::Model& m, const std::vector<int>* truth, int digits) {
    const auto num = [digits](double v) {
        if (digits == 0) return harness::csv_number(v);
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        return std::string(buf);
    };
    out << "star,l,b,r,mu,nu";
    for (std::size_t c = 0; c < s.components; ++c) out << ",p_" << separate::component_name(static_cast<int>(c));
    out << ",most_likely";
    if (truth) out << ",true_component";
    out << '\n';
    // mu in the main area's own range (a southern stripe's runs past 360 degrees).
    const double mu_min = m.areas.front().mu.min;
    for (std::size_t i = 0; i < stars.size(); ++i) {
        auto sc = geometry::galactic_to_stripe({stars.l[i], stars.b[i]}, m.wedge);
        while (sc.mu < mu_min) sc.mu += 360.0;
        while (sc.mu >= mu_min + 360.0) sc.mu -= 360.0;
        out << i << ',' << num(stars.l[i]) << ',' << num(stars.b[i]) << ',' << num(stars.r[i]) << ',' << num(sc.mu) << ','
            << num(sc.nu);
        for (std::size_t c = 0; c < s.components; ++c) out << ',' << num(s.probability[i * s.components + c]);
        out << ',' << separate::component_name(s.most_likely[i]);
        if (truth) out << ',' << separate::component_name((*truth)[i]);
        out << '\n';
    }
}

}  // namespace

int command_separate(const Args& args) {
    harness::CommandHelp help;
    help.synopsis = "-a astronomy_parameters.txt -s stars.txt [options]";
    help.about = "Separates a star catalogue into the model's components: each star's probability of belonging to the "
                 "background and to each stream, for the parameter vector given (a fitted vector is the -o file of "
                 "mwsep fit), from the same per-star densities, integrals and mixture weights as the likelihood: a "
                 "star's probability of component c is its term (P_c / I_c) E_c over their sum.";
    const harness::Options opt(args, separate_specs(), "mwsep separate", help);
    // Every option and output is checked before an input is read.
    RunOptions o = input_run_options(opt, true);
    if (opt.has("--np") && opt.has("--search-parameters"))
        throw opt.error("--np", "and --search-parameters both give the vector: give one");
    const bool compressed = opt.choice("--integrator", {"exact", "compressed"}, "exact") == "compressed";
    o.cpu_integrator = compressed ? "compressed" : "fast";
    o.threads = static_cast<int>(opt.integer("--threads", 0, 0, INT_MAX));
    const std::string csv_path = opt.text("--csv");
    const int digits = static_cast<int>(opt.integer("--digits", 0, 1, 17));
    if (opt.has("--digits") && csv_path.empty()) throw opt.error("--digits", "applies to the --csv file only");
    const bool csv_to_stdout = csv_path == "-";
    const bool json = opt.has("--json");
    if (csv_to_stdout && json) throw opt.error("--csv", "'-' and --json both write to standard output: give --csv a file");
    {
        std::vector<harness::NamedPath> inputs{{"-a", o.astronomy_path}, {"-s", o.stars_path}};
        if (o.search_path) inputs.push_back({"--search-parameters", *o.search_path});
        if (opt.has("--labels")) inputs.push_back({"--labels", opt.text("--labels")});
        std::vector<harness::NamedPath> outputs;
        if (!csv_path.empty() && !csv_to_stdout) outputs.push_back({"--csv", csv_path});
        harness::check_outputs("mwsep separate", inputs, outputs);
    }
    // What the integrals will cost, before they start.
    std::fprintf(stderr, "mwsep separate: %s\n", work_summary(model::build_model(read_work_unit(o), o.r_binning), o).c_str());
    const auto t0 = std::chrono::steady_clock::now();
    const Inputs in = load_inputs(o);
    std::optional<std::vector<int>> truth;
    if (opt.has("--labels")) {
        truth = separate::read_labels(opt.text("--labels"), 1 + in.setup.streams.size());
        if (truth->size() != in.stars.size())
            throw std::runtime_error(opt.text("--labels") + ": labels " + std::to_string(truth->size()) +
                                     " stars; the catalogue " + o.stars_path + " has " + std::to_string(in.stars.size()));
    }
    cpu::CompressedReport controller;
    const model::Integrals integrals = compressed ? cpu::integrate_compressed(in.setup, o.threads, {}, &controller)
                                                  : cpu::integrate_fast(in.setup, o.threads);
    const separate::Separation s = separate::separate(in.setup, in.stars, integrals, o.threads);
    std::optional<separate::Agreement> agree;
    if (truth) agree = separate::agreement(s, *truth);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    if (!csv_path.empty()) {
        const auto write = [&](std::ostream& out) { write_csv(out, in.stars, s, in.setup.model, truth ? &*truth : nullptr, digits); };
        if (csv_to_stdout) write(std::cout);
        else harness::write_file_atomically(csv_path, write);
    }
    const std::size_t n = in.stars.size();
    if (json) {
        harness::JsonObject j(std::cout);
        j.string("astronomy_parameters", o.astronomy_path).string("stars_file", o.stars_path);
        j.string("integrator", compressed ? "compressed line-of-sight quadrature (not the exact sum)" : "fast exact");
        j.integer("stars", static_cast<long long>(n)).number("likelihood", s.likelihood.likelihood);
        j.number("background_integral", integrals.background).numbers("stream_integrals", integrals.streams);
        {
            auto c = j.object("components");
            for (std::size_t k = 0; k < s.components; ++k) {
                auto one = c.object(separate::component_name(static_cast<int>(k)));
                one.number("expected_stars", s.expected[k]).integer("most_likely_stars", static_cast<long long>(s.assigned[k]));
                one.close();
            }
            c.close();
        }
        j.integer("unexplained_stars", static_cast<long long>(s.unexplained));
        j.number("expected_correct_fraction", n ? s.expected_correct / static_cast<double>(n) : 0.0);
        if (agree) {
            j.integer("correct_stars", static_cast<long long>(agree->correct));
            j.number("correct_fraction", static_cast<double>(agree->correct) / static_cast<double>(agree->stars));
            auto c = j.object("confusion");
            for (std::size_t t = 0; t < s.components; ++t) {
                auto row = c.object("true_" + separate::component_name(static_cast<int>(t)));
                for (std::size_t k = 0; k <= s.components; ++k)
                    row.integer(separate::component_name(k < s.components ? static_cast<int>(k) : -1),
                                static_cast<long long>(agree->confusion[t][k]));
                row.close();
            }
            c.close();
        }
        j.number("seconds", seconds);
        j.close();
        std::cout << '\n';
        return 0;
    }
    // The summary goes to standard error when the CSV takes standard output.
    FILE* text = csv_to_stdout ? stderr : stdout;
    std::fprintf(text, "stars                   %zu (%s)\n", n, o.stars_path.c_str());
    std::fprintf(text, "integrals               %s\n", compressed ? "compressed quadrature (not the exact sum)" : "fast exact");
    std::fprintf(text, "likelihood              %.17g\n", s.likelihood.likelihood);
    for (std::size_t k = 0; k < s.components; ++k)
        std::fprintf(text, "%-23s expected %.6g stars, most likely for %zu\n",
                     separate::component_name(static_cast<int>(k)).c_str(), s.expected[k], s.assigned[k]);
    if (s.unexplained) std::fprintf(text, "unexplained             %zu stars of mixture probability 0\n", s.unexplained);
    std::fprintf(text, "expected correct        %.6f of the stars (the mean of each star's largest probability)\n",
                 n ? s.expected_correct / static_cast<double>(n) : 0.0);
    if (agree)
        std::fprintf(text, "assigned correctly      %zu of %zu (%.6f)\n", agree->correct, agree->stars,
                     static_cast<double>(agree->correct) / static_cast<double>(agree->stars));
    std::fprintf(text, "seconds                 %.3f\n", seconds);
    return 0;
}

}  // namespace mwsep::app
