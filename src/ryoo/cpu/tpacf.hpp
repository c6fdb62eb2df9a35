/// @file tpacf.hpp
/// @brief TPACF on one CPU thread: a synthetic sky (a clustered data set and uniform random sets), the
/// angular bins, the DD, DR and RR histograms and the Landy-Szalay estimate of w(theta) from them.
#pragma once

#include <cstdint>
#include <vector>

namespace ryoo {

/// The inputs of one TPACF run: unit vectors (x, y, z) of the data set and of each random set, and the
/// cosines of the bin edges (decreasing).
struct TpacfInput {
    int points = 0;                   ///< points per set
    int random_sets = 0;              ///< random sets
    std::vector<float> data;          ///< 3 * points floats: x, y, z of each data point
    std::vector<float> random;        ///< 3 * points * random_sets floats, set after set
    std::vector<double> edge_arcmin;  ///< the bin edges [arcmin], increasing
    std::vector<float> edge_cosines;  ///< their cosines, rounded to float (decreasing)
    /// Slots of a histogram: edges + 1.
    int slots() const { return static_cast<int>(edge_cosines.size()) + 1; }
    /// Random set @p s (3 * points floats).
    const float* random_set(int s) const { return random.data() + static_cast<std::size_t>(3) * points * s; }
};

/// A synthetic sky from @p seed: half of the data points in 64 small clusters (caps of about 1 degree),
/// half uniform on the sphere; random sets uniform. @p bins log-spaced bins from 1 to 10,000 arcmin
/// (bins + 1 edges). Throws std::invalid_argument for points < 2, random_sets < 1, bins outside 1..30.
TpacfInput synthetic_sky(int points, int random_sets, int bins, std::uint64_t seed);

/// Adds the slot of every pair (a_i, b_j) (or i < j when @p self) to @p histogram (edges + 1 counters).
void tpacf_pairs_cpu(const float* a, int na, const float* b, int nb, bool self, const std::vector<float>& edge_cosines,
                     std::uint64_t* histogram);

/// The histograms of one run: DD, and DR and RR per random set (slots counters each).
struct TpacfHistograms {
    int slots = 0;                  ///< counters per histogram
    std::vector<std::uint64_t> dd;  ///< data-data pairs, i < j
    std::vector<std::uint64_t> dr;  ///< data-random pairs, random set after random set
    std::vector<std::uint64_t> rr;  ///< random-random pairs, i < j, set after set
    /// Equal in every member (GPU results are compared with the CPU's exactly).
    bool operator==(const TpacfHistograms&) const = default;
};

/// Empty histograms for @p input.
TpacfHistograms empty_histograms(const TpacfInput& input);

/// Every histogram of @p input on one CPU thread.
TpacfHistograms tpacf_cpu(const TpacfInput& input);

/// The Landy-Szalay estimate per slot, (DD - 2 DR + RR) / RR with each count divided by its number of
/// pairs and DR, RR summed over the random sets; NaN where RR is 0.
std::vector<double> landy_szalay(const TpacfHistograms& h, int points, int random_sets);

}  // namespace ryoo
