#include "mwsep/fit/report.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "harness/atomic_file.hpp"
#include "harness/csv.hpp"
#include "harness/json.hpp"

namespace mwsep::fit {
namespace {

/// The shortest text that reads back as @p v.
std::string exact(double v) {
    char buf[40];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    return std::string(buf, end);
}

}  // namespace

std::vector<std::size_t> flat_directions(const FitResult& r) {
    std::vector<std::size_t> out;
    if (r.scaled_fisher_eigenvalues.empty()) return out;
    const double largest = r.scaled_fisher_eigenvalues.back();  // ascending
    for (std::size_t k = 0; k < r.scaled_fisher_eigenvalues.size(); ++k)
        if (!(r.scaled_fisher_eigenvalues[k] > flat_eigenvalue_fraction * largest) || !(largest > 0)) out.push_back(k);
    return out;
}

void write_search_parameters(const std::string& path, const std::string& name, const std::vector<double>& x) {
    harness::write_file_atomically(path, [&](std::ostream& out) {
        out << name << "\nparameters [" << x.size() << "]:";
        for (double v : x) out << ' ' << exact(v);
        out << "\nmetadata: written by mwsep fit\n";
    });
}

void write_report(const std::string& path, const FitSpace& space, const FitResult& r, const ReportContext& c) {
    harness::write_file_atomically(path, [&](std::ostream& out) { write_report(out, space, r, c); });
}

void write_report(std::ostream& out, const FitSpace& space, const FitResult& r, const ReportContext& c) {
    {
        harness::JsonObject top(out);
        top.string("command", c.command).string("work_unit", c.work_unit).string("experiment", c.experiment);
        top.string("evaluator", c.evaluator).integer("ranks", c.ranks).integer("stars", static_cast<long long>(c.stars));
        top.string("algorithm", c.options.algorithm).integer("population", c.options.population);
        top.integer("generations_requested", c.options.generations).integer("seed", c.options.seed);
        top.integer("polish_evaluations_limit", c.options.polish_evaluations).number("hessian_step", c.options.hessian_step);
        top.string("integrator", c.integrator);
        top.number("start_likelihood", c.start_likelihood);
        if (c.truth) top.number("truth_likelihood", c.truth_likelihood);
        top.number("global_likelihood", r.global_likelihood).number("likelihood", r.likelihood);
        // The optimum's likelihood by the exact sum, where the fit's evaluator was another (absent otherwise).
        if (!std::isnan(c.exact_likelihood)) {
            top.number("exact_likelihood", c.exact_likelihood).number("exact_difference", r.likelihood - c.exact_likelihood);
            top.number("exact_check_seconds", c.exact_check_seconds);
        }
        if (c.reference) {
            top.string("reference_file", c.reference_file).number("reference_likelihood", c.reference_likelihood);
            if (!std::isnan(c.reference_exact_likelihood)) top.number("reference_exact_likelihood", c.reference_exact_likelihood);
        }
        top.string("search_stopped_by", r.stopped_by);
        top.boolean("completed", r.completed).boolean("positive_definite", r.positive_definite);
        top.integer("generations", r.generations).integer("resumed_from", r.resumed_from);
        top.integer("evaluations", r.evaluations).integer("global_evaluations", r.global_evaluations);
        top.integer("polish_evaluations", r.polish_evaluations).integer("hessian_evaluations", r.hessian_evaluations);
        top.integer("invalid_evaluations", r.invalid_evaluations);
        top.boolean("polish_from_start", c.options.polish_from_start);
        {
            // One entry per polish, named by where it began.
            auto polishes = top.object("polishes");
            for (const auto& p : r.polishes) {
                auto one = polishes.object(p.from);
                one.number("begin_likelihood", p.begin).number("likelihood", p.likelihood).integer("evaluations", p.evaluations);
                one.string("stopped_by", p.stopped_by);
                one.close();
            }
            polishes.close();
        }
        top.number("seconds", r.seconds).number("global_seconds", r.global_seconds);
        top.number("polish_seconds", r.polish_seconds).number("hessian_seconds", r.hessian_seconds);
        top.number("evaluation_seconds", r.evaluation_seconds);
        top.number("hessian_integral_seconds", r.hessian_integral_seconds);
        // How the integrals were obtained with the integral cache (absent without it).
        for (const auto& [name, work] : {std::pair{"integral_work", &r.integral_work},
                                         std::pair{"hessian_integral_work", &r.hessian_integral_work}}) {
            if (!*work) continue;
            auto o = top.object(name);
            o.integer("full", (*work)->full).integer("partial", (*work)->partial).integer("none", (*work)->none);
            o.integer("components", (*work)->components).integer("reused", (*work)->reused);
            o.close();
        }
        if (!r.phase_seconds.empty()) {  // where the evaluator's time went, summed over its evaluations
            auto phases = top.object("phase_seconds");
            for (const auto& [name, seconds] : r.phase_seconds) phases.number(name, seconds);
            phases.close();
        }
        top.number("seconds_per_evaluation", r.evaluations > 0 ? r.evaluation_seconds / r.evaluations : NAN);
        top.number("evaluations_per_second",
                   r.global_seconds > 0 && r.global_evaluations > 0 ? r.global_evaluations / r.global_seconds : NAN);
        {
            auto params = top.object("parameters");
            for (std::size_t i = 0; i < space.size(); ++i) {
                auto p = params.object(space.names[i]);
                p.number("start", space.start[i]).number("lower", space.lower[i]).number("upper", space.upper[i]);
                p.number("best", r.best[i]).number("sigma", r.sigma[i]);
                if (c.truth) {
                    const double t = (*c.truth)[i];
                    p.number("truth", t).number("pull", std::isfinite(r.sigma[i]) ? (r.best[i] - t) / r.sigma[i] : NAN);
                }
                if (c.reference) {
                    const double v = (*c.reference)[i];
                    p.number("reference", v)
                        .number("reference_pull", std::isfinite(r.sigma[i]) ? (r.best[i] - v) / r.sigma[i] : NAN);
                }
                p.close();
            }
            params.close();
        }
        if (!r.scaled_fisher_eigenvalues.empty()) {
            // The Fisher information in units of the Hessian's steps: its eigenvalues, and the direction of
            // the smallest one by parameter (where the point is no maximum, this is the combination to blame).
            top.numbers("scaled_fisher_eigenvalues", r.scaled_fisher_eigenvalues);
            auto w = top.object("weakest_direction");
            for (std::size_t i = 0; i < space.size(); ++i) w.number(space.names[i], r.weakest_direction[i]);
            w.close();
            // Every eigenvector by parameter, smallest eigenvalue first, and the flat ones among them (eigenvalue
            // at most flat_eigenvalue_fraction of the largest): where the Hessian is not negative definite, the
            // combinations of parameters along which the point is no maximum.
            const auto directions = [&](const char* key, const std::vector<std::size_t>& which) {
                auto all = top.object(key);
                for (const std::size_t k : which) {
                    auto one = all.object(std::to_string(k + 1));
                    one.number("eigenvalue", r.scaled_fisher_eigenvalues[k]);
                    auto v = one.object("direction");
                    for (std::size_t i = 0; i < space.size(); ++i) v.number(space.names[i], r.scaled_fisher_eigenvectors[k][i]);
                    v.close();
                    one.close();
                }
                all.close();
            };
            std::vector<std::size_t> every(r.scaled_fisher_eigenvalues.size());
            for (std::size_t k = 0; k < every.size(); ++k) every[k] = k;
            if (r.scaled_fisher_eigenvectors.size() == every.size()) {
                directions("scaled_fisher_eigenvectors", every);
                directions("flat_directions", flat_directions(r));
            }
        }
        {
            auto h = top.object("history");
            std::vector<double> g, e, b, s;
            for (const auto& rec : r.history)
                g.push_back(rec.generation), e.push_back(static_cast<double>(rec.evaluations)), b.push_back(rec.best),
                    s.push_back(rec.seconds);
            h.numbers("generation", g).numbers("evaluations", e).numbers("best_likelihood", b).numbers("seconds", s);
            h.close();
        }
        top.close();
        out << '\n';
    }
}

void write_progress(const std::string& path, const FitResult& r, const ReportContext& c) {
    harness::write_file_atomically(path, [&](std::ostream& out) {
        // After the original columns: the evaluator's seconds of the generation's evaluations per phase, empty
        // where it measures none (GenerationRecord).
        out << "experiment,work_unit,algorithm,evaluator,generation,evaluations,best_likelihood,seconds,"
               "prepare_s,integral_s,likelihood_s,evaluate_s\n";
        const auto timing = [](double seconds) { return std::isnan(seconds) ? std::string() : harness::csv_number(seconds); };
        for (const auto& rec : r.history)
            out << harness::csv_field(c.experiment) << ',' << harness::csv_field(c.work_unit) << ','
                << harness::csv_field(c.options.algorithm) << ',' << harness::csv_field(c.evaluator) << ','
                << rec.generation << ',' << rec.evaluations << ',' << harness::csv_number(rec.best) << ','
                << harness::csv_number(rec.seconds) << ',' << timing(rec.prepare_seconds) << ','
                << timing(rec.integral_seconds) << ',' << timing(rec.likelihood_seconds) << ','
                << timing(rec.evaluate_seconds) << '\n';
    });
}

}  // namespace mwsep::fit
