/// @file backend.hpp
/// @brief The CUDA backend: device choice, uploads, the integral kernel over every area, the likelihood
/// kernel, and the host reductions (spec 3.4 and 5).
#pragma once

#include <string>

#include "geometry/tables.hpp"
#include "model/result.hpp"
#include "model/work_unit.hpp"
#include "variant_table.hpp"

namespace mwsep::cuda {

/// The outcome of one GPU evaluation.
struct GpuResult {
    model::Integrals integrals;     ///< cell sums added in double on the host, cuts subtracted (spec 3.4)
    model::Likelihood likelihood;   ///< per-star kernel results summed on the host in star order
    double integral_seconds = 0;    ///< integral kernels, CUDA events
    double likelihood_seconds = 0;  ///< likelihood kernel, CUDA events
    std::string device;             ///< name of the GPU that ran the kernels
};

/// Picks a device as the thesis did: @p requested if >= 0 (it must support double precision when
/// @p need_double), otherwise the one with the largest SM count x clock rate. Throws CudaError if none.
int select_device(int requested, bool need_double);

/// Evaluates the likelihood with kernel variant @p variant on device @p device (-1: choose).
GpuResult evaluate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const std::string& variant, int device, const LaunchOptions& launch = {}, bool soa_stars = true);

}  // namespace mwsep::cuda
