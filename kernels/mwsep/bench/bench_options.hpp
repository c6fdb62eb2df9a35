/// @file bench_options.hpp
/// @brief What the microbenchmark commands share: the measurement they start from (their options add the
/// measurement options with harness::with_measure_options).
#pragma once

#include "harness/measure.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"

namespace mwsep::bench {

/// The measurement every microbenchmark starts from: 5 to 50 samples, 0.5 %, 2 s per row; @p cold: L2
/// flushed before each sample.
inline harness::MeasureOptions measure_defaults(bool cold) {
    harness::MeasureOptions d;
    d.stop.min_samples = 5;
    d.stop.max_samples = 50;
    d.stop.time_limit_s = 2.0;
    d.cold = cold;
    return d;
}

}  // namespace mwsep::bench
