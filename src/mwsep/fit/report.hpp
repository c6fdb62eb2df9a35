/// @file report.hpp
/// @brief What a fit writes: the best vector as a search-parameters file (spec 1.2), the JSON report,
/// and the progress of the global search as CSV.
#pragma once

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
};

/// Writes the JSON report of @p result (atomically).
void write_report(const std::string& path, const FitSpace& space, const FitResult& result, const ReportContext& context);
/// The same report written to @p out (`mwsep fit --json`: standard output).
void write_report(std::ostream& out, const FitSpace& space, const FitResult& result, const ReportContext& context);

/// Writes the history of @p result as CSV, one row per generation (atomically).
void write_progress(const std::string& path, const FitResult& result, const ReportContext& context);

}  // namespace mwsep::fit
