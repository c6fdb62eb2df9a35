/// @file reference.hpp
/// @brief The CPU reference of one input and the check of an output against it.
///
/// Small inputs are checked at every output. Where the direct reference would take too long (a filter of
/// a million taps over ten million samples is 10^13 products), a fixed sample of outputs is checked
/// instead: the first and last outputs (where the padding matters) and outputs spread evenly between.
/// What was checked is recorded with the verdict ("all" or "sample:<count>").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace munch::check {

/// The outcome of one check.
struct Verdict {
    bool valid = false;         ///< every checked output within the tolerance
    double max_abs_err = 0;     ///< the largest |output - reference| over the checked outputs
    double tolerance = 0;       ///< the largest difference allowed
    std::string checked;        ///< "all" or "sample:<count>"
    std::string first_failure;  ///< where the first difference beyond the tolerance is (empty when valid)
};

/// The outputs a sampled check looks at, for an output of @p length and at most @p count samples: all of
/// them when count >= length, else the ends and evenly spread ones, sorted and unique.
std::vector<std::size_t> sample_positions(std::size_t length, std::size_t count);

/// The reference of one convolution: every output (summed in double) or a sample of them.
class ConvolutionReference {
public:
    /// Prepares the reference of @p signal * @p filter on @p threads threads; checks every output when
    /// (n + w - 1) * w <= @p full_budget products, else a sample of about @p full_budget / w outputs (at
    /// least 64).
    ConvolutionReference(const std::vector<float>& signal, const std::vector<float>& filter, int threads,
                         double full_budget = 2e9);
    /// Compares @p output (n + w - 1 values) with the reference, allowing @p tolerance per output.
    Verdict check(const std::vector<float>& output, double tolerance) const;
    /// The positions checked.
    const std::vector<std::size_t>& positions() const { return positions_; }

private:
    std::size_t length_;
    std::vector<std::size_t> positions_;
    std::vector<double> values_;
    bool all_;
};

/// The reference of one rolling ball: every output, or a sample whose erosion windows are recomputed
/// around each sampled output.
class RollingBallReference {
public:
    /// As ConvolutionReference; the full reference costs 2 n w window terms, a sampled output w^2.
    RollingBallReference(const std::vector<float>& signal, const std::vector<float>& ball, int threads,
                         double full_budget = 2e10);
    /// Compares @p output (n values); the GPU must agree exactly (min and max are exact and each
    /// candidate is one rounded addition, so the tolerance is 0).
    Verdict check(const std::vector<float>& output) const;
    /// The positions checked.
    const std::vector<std::size_t>& positions() const { return positions_; }

private:
    std::size_t length_;
    std::vector<std::size_t> positions_;
    std::vector<float> values_;
    bool all_;
};

/// Whether a sampled rolling-ball reference of this size fits @p budget window terms (w^2 per sample,
/// at least 16 samples), or the full one does.
bool rolling_ball_checkable(std::size_t n, std::size_t w, double full_budget = 2e10);

}  // namespace munch::check
