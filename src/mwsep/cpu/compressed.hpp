/// @file compressed.hpp
/// @brief The compressed CPU integrator: a different algorithm from the exact sum (Gauss rules of each
/// area's fixed line-of-sight measure, compressed_rule.hpp) with an error controller and exact fallbacks
/// (compressed_cell.hpp). Its result differs from the exact sum by a measured and controlled amount.
#pragma once

#include <string>
#include <vector>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/result.hpp"

namespace mwsep::cpu {

/// Settings of the controller.
struct CompressedOptions {
    /// Accept a cell's component when |Q_{k+1} - Q_k| <= tolerance |Q_{k+1}| (+ the stream floor).
    double tolerance = 1e-14;
};

/// What the controller did in one evaluation, per component (background, then each stream).
struct CompressedReport {
    std::vector<long long> cells;          ///< cells integrated (every area)
    std::vector<long long> fallbacks;      ///< cells that took the exact sum
    std::vector<double> stated_error;      ///< sum of the accepted estimates over |integral|: the stated relative error
    std::vector<long long> evaluations;    ///< integrand evaluations by the rules (fallbacks not counted)
    std::vector<int> ladder;               ///< node counts of the ladder of area 0
    double rule_seconds = 0;               ///< building (or finding in the cache) the ladders
    double tolerance = 0;                  ///< the tolerance used
    bool all_exact = false;                ///< the model has no line-of-sight algebra: every cell took the exact sum
    long long total_fallbacks() const {    ///< fallbacks over every component
        long long n = 0;
        for (const auto f : fallbacks) n += f;
        return n;
    }
};

/// Integrates with the compressed quadrature on @p threads threads (0: all cores); cells and rows are
/// summed like integrate_fast's (Neumaier, fixed order, the same for any thread count). Models outside
/// the line-of-sight algebra (general power law, auxiliary term) take the exact sum everywhere
/// (report->all_exact). Throws std::invalid_argument for a tolerance that is not in (0, 1e-3].
model::Integrals integrate_compressed(const geometry::IntegrationSetup& s, int threads,
                                      const CompressedOptions& options = {}, CompressedReport* report = nullptr);

/// One line describing @p report (fallbacks and stated error per component), for logs.
std::string describe(const CompressedReport& report);

}  // namespace mwsep::cpu
