/// @file summation.hpp
/// @brief Neumaier (improved Kahan) compensated summation, used wherever the fast paths add many terms.
#pragma once

#include <cmath>

#include "mwsep/math/hd.hpp"

namespace mwsep::cpu {

/// Running sum with a compensation term; exact to about one rounding of the final value. Host and device
/// (the modern kernels' chunk sums use it too).
class NeumaierSum {
public:
    /// Adds @p v; the rounding error of the addition goes into the compensation term.
    MWSEP_HD void add(double v) {
        const double t = sum_ + v;
        if (std::fabs(sum_) >= std::fabs(v)) comp_ += (sum_ - t) + v;
        else comp_ += (v - t) + sum_;
        sum_ = t;
    }
    MWSEP_HD double value() const { return sum_ + comp_; }  ///< the sum so far: running sum plus compensation
    MWSEP_HD double running_sum() const { return sum_; }   ///< the running sum without its compensation
    MWSEP_HD double compensation() const { return comp_; }  ///< the accumulated rounding errors

private:
    double sum_ = 0;
    double comp_ = 0;
};

}  // namespace mwsep::cpu
