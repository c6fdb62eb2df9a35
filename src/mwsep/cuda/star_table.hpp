/// @file star_table.hpp
/// @brief The likelihood kernel's star table built on the host, apart from its upload, so that it can be
/// built while the devices start (mwsep run) and uploaded later by ResidentStars.
#pragma once

#include <cstddef>
#include <vector>

#include "harness/device_budget.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::cuda {

/// The length of each block of a star table of @p count stars (and of each point of the convolution table):
/// @p count rounded up to a multiple of 64.
constexpr std::size_t star_stride(std::size_t count) { return (count + 63) / 64 * 64; }

/// Every star's sin b, sin l, cos b, cos l and r, in the kernel's precision and layout: the values the
/// likelihood kernel reads, exactly as ResidentStars(catalogue, ...) converts them.
struct StarTable {
    bool double_precision = true;  ///< values in f64 (else in f32)
    bool soa = true;               ///< structure of arrays: 5 blocks of `stride` values (else 5 values per star)
    int count = 0;                 ///< number of stars N
    int stride = 0;                ///< N rounded up to a multiple of 64: length of each SoA block
    std::vector<double> f64;       ///< the table in double precision (empty unless double_precision)
    std::vector<float> f32;        ///< the table in single precision (empty if double_precision)
};

/// The star table of @p stars in the precision and layout given (no CUDA call: any thread, any time).
StarTable make_star_table(const model::StarCatalogue& stars, bool double_precision, bool soa);

/// Adds to @p plan what ResidentStars allocates for @p count stars in double (else single) precision for a
/// model of @p n_streams streams: the star table (5 values per star, each block padded to a multiple of 64
/// stars), the per-star results and the per-star densities.
void plan_star_memory(std::size_t count, bool double_precision, int n_streams, harness::DevicePlan& plan);

/// Adds to @p plan what tabulate_convolution() allocates for @p count stars and @p n_conv convolution points in
/// double (else single) precision: two values per star and point.
void plan_convolution_table(std::size_t count, int n_conv, bool double_precision, harness::DevicePlan& plan);

}  // namespace mwsep::cuda
