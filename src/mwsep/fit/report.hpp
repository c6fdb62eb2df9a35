/// @file report.hpp
/// @brief What a fit writes: the best vector as a search-parameters file (spec 1.2), the JSON report,
/// and the progress of the global search as CSV.
#pragma once

#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mwsep/fit/optimizer.hpp"
#include "mwsep/fit/space.hpp"

namespace mwsep::fit {

/// Writes @p x as a 2009 search_parameters.txt named @p name (atomically); every value in a form that
/// reads back exactly.
void write_search_parameters(const std::string& path, const std::string& name, const std::vector<double>& x);

/// The labels and settings a report records beside the result.
struct ReportContext {
    std::string command;        ///< the command line
    std::string work_unit;      ///< label of the work unit
    std::string experiment;     ///< label of the experiment
    std::string evaluator;      ///< what evaluated the batches
    int ranks = 1;              ///< MPI ranks
    std::size_t stars = 0;      ///< stars in the catalogue
    FitOptions options;         ///< how the fit ran
    double start_likelihood = 0;          ///< L at the start vector
    double truth_likelihood = 0;          ///< L at the true vector (when truth is set)
    std::optional<std::vector<double>> truth;  ///< the true vector, when known (recovery)
    std::string integrator = "exact";          ///< "exact" or "compressed" (the compressed line-of-sight quadrature)
    /// The optimum's likelihood by the exact sum, where the fit's own evaluator was another (the compressed
    /// integrator or a single-precision variant); NaN otherwise.
    double exact_likelihood = std::numeric_limits<double>::quiet_NaN();
    double exact_check_seconds = std::numeric_limits<double>::quiet_NaN();  ///< the exact re-evaluations' seconds
    /// A vector to compare the fit with (`--reference`: MilkyWay\@Home's, say), when given.
    std::optional<std::vector<double>> reference;
    std::string reference_file;  ///< the file it was read from
    double reference_likelihood = std::numeric_limits<double>::quiet_NaN();  ///< its L by the fit's evaluator
    /// Its L by the exact sum, where the fit's evaluator is another (NaN where not computed).
    double reference_exact_likelihood = std::numeric_limits<double>::quiet_NaN();
};

/// A direction is flat where its scaled Fisher eigenvalue (Uncertainty::scaled_fisher_eigenvalues) is at most
/// this fraction of the largest: the likelihood does not curve along it (at or below zero: no maximum there).
inline constexpr double flat_eigenvalue_fraction = 1e-6;

/// The indices (into the ascending eigenvalues) of the flat directions of @p result: empty for a maximum whose
/// every direction curves, and for a fit without a Hessian.
std::vector<std::size_t> flat_directions(const FitResult& result);

/// Writes the JSON report of @p result (atomically).
void write_report(const std::string& path, const FitSpace& space, const FitResult& result, const ReportContext& context);
/// The same report written to @p out (`mwsep fit --json`: standard output).
void write_report(std::ostream& out, const FitSpace& space, const FitResult& result, const ReportContext& context);

/// Writes the history of @p result as CSV, one row per generation (atomically).
void write_progress(const std::string& path, const FitResult& result, const ReportContext& context);

}  // namespace mwsep::fit
