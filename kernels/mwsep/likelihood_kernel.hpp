/// @file likelihood_kernel.hpp
/// @brief Host entry of the likelihood kernel.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "mwsep/cuda/star_table.hpp"
#include "mwsep/cuda_check.hpp"
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

/// A star catalogue on the current device in the likelihood kernel's precision and layout, with room for
/// the kernel's per-star outputs: uploaded once, so that a fit evaluates many candidates over it.
struct ResidentStars {
    /// Converts and uploads @p stars (on the current device) for a model of @p n_streams streams.
    ResidentStars(const model::StarCatalogue& stars, bool double_precision, bool soa, int n_streams);
    /// Uploads a table make_star_table() built (on the current device): the same buffers, the same values.
    /// Defined in src/mwsep/cuda/star_table.cpp.
    ResidentStars(const StarTable& table, int n_streams);
    bool double_precision;  ///< the kernel's precision (double or float values below)
    bool soa;               ///< structure of arrays (else array of structures)
    int count;              ///< number of stars N
    int stride;             ///< N rounded up to a multiple of 64: length of each SoA block
    DeviceMemory mem;       ///< owns the buffers below
    const void* stars = nullptr;      ///< 5 values per star in the layout soa names
    void* log_probability = nullptr;  ///< per star
    void* densities = nullptr;        ///< per star, 1 + S values
};

/// Runs the kernel over the resident stars @p stars on the CUDA queue @p queue (their device current),
/// downloads.
/// With @p densities false only the log-probabilities come back (a fit needs no more; the densities, for
/// the diagnostic likelihoods, are most of the transfer) and StarResults::densities stays empty.
StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                                  const model::Integrals& integrals, cudaStream_t queue, bool densities = true);

/// Uploads the stars, runs the kernel in the given precision and star layout (SoA or AoS) on the CUDA
/// queue @p queue, downloads.
StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, bool double_precision, bool soa,
                                  cudaStream_t queue);

}  // namespace mwsep::cuda
