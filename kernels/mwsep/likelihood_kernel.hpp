/// @file likelihood_kernel.hpp
/// @brief Host entry of the likelihood kernel.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/result.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::cuda {

/// What the likelihood kernel returns, per star, converted to double.
struct StarResults {
    std::vector<double> log_probability;  ///< log10 of the mixture probability, or -238
    std::vector<double> densities;        ///< 1 + S densities per star
    double kernel_ms = 0;                 ///< kernel time from CUDA events [ms], transfers excluded
};

/// Uploads the stars, runs the kernel in the given precision and star layout (SoA or AoS) on the CUDA
/// queue @p queue, downloads.
StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, bool double_precision, bool soa,
                                  cudaStream_t queue);

}  // namespace mwsep::cuda
