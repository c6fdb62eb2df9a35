/// @file modern.hpp
/// @brief Host-side helpers of the modern variants that tests call directly.
#pragma once

namespace mwsep::cuda {

/// Largest relative errors of the GPU's approximate double-precision seeds, as the modern kernel uses them.
struct SeedErrors {
    double rsqrt = 0;       ///< max |seed(x) sqrt(x) - 1| of the reciprocal square root
    double reciprocal = 0;  ///< max |seed(x) x - 1| of the reciprocal
};

/// Measures the seeds on the current device over @p samples arguments spread over 2^-30 .. 2^30 (the
/// refinements of math/refine.hpp assume errors below math::seed_relative_error).
SeedErrors measure_seed_errors(int samples);

}  // namespace mwsep::cuda
