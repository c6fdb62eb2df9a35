/// @file summation.hpp
/// @brief Neumaier (improved Kahan) compensated summation, used wherever the fast paths add many terms.
#pragma once

#include <cmath>

#include "mwsep/math/hd.hpp"

namespace mwsep::math {

/// Running sum with a compensation term in @p Real; exact to about one rounding of the final value. Host and
/// device (the modern kernels' chunk sums use it too); the extended-precision integrator uses it in long double.
template <class Real>
class BasicNeumaierSum {
public:
    /// Adds @p v; the rounding error of the addition goes into the compensation term.
    MWSEP_HD void add(Real v) {
        const Real t = sum_ + v;
        if (std::fabs(sum_) >= std::fabs(v)) comp_ += (sum_ - t) + v;
        else comp_ += (v - t) + sum_;
        sum_ = t;
    }
    MWSEP_HD Real value() const { return sum_ + comp_; }  ///< the sum so far: running sum plus compensation
    MWSEP_HD Real running_sum() const { return sum_; }   ///< the running sum without its compensation
    MWSEP_HD Real compensation() const { return comp_; }  ///< the accumulated rounding errors

private:
    Real sum_ = 0;
    Real comp_ = 0;
};

/// The double-precision compensated sum of every integrator and kernel.
using NeumaierSum = BasicNeumaierSum<double>;

}  // namespace mwsep::math
