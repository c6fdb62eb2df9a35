/// @file result.hpp
/// @brief What an evaluation produces: the integrals, the likelihood and its diagnostics.
#pragma once

#include <vector>

namespace mwsep::model {

/// Volume integrals of every component over the wedge, cuts subtracted (spec 3.3).
struct Integrals {
    double background = 0;        ///< I_bg, the normaliser of the background density
    std::vector<double> streams;  ///< I_s, one per stream
};

/// The likelihood of spec 4.4 and the diagnostics of spec 4.6.
struct Likelihood {
    double likelihood = 0;             ///< mean over stars of log10 of the mixture probability
    double background_likelihood = 0;  ///< background-only diagnostic (spec 4.6)
    std::vector<double> stream_only;   ///< per-stream diagnostics (spec 4.6)
    long long zero_probability_stars = 0;  ///< stars whose probability was exactly 0 (counted -238)
};

}  // namespace mwsep::model
