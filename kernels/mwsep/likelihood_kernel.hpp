/// @file likelihood_kernel.hpp
/// @brief Host entry of the likelihood kernel.
#pragma once

#include <cuda_runtime.h>

#include <memory>
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

/// What the device star sum (run_likelihood_sum) adds per block of stars and in total: a compensated sum
/// (running sum and its accumulated rounding errors) of the stars' log10 mixture probabilities, the stars
/// at the -238 penalty, and the stars without a finite value with the first of them.
struct StarSumPart {
    double sum;                           ///< running sum of the log-probabilities
    double compensation;                  ///< the rounding errors of its additions, summed
    unsigned long long zero_stars;        ///< stars of mixture probability exactly 0 (the penalty)
    unsigned long long non_finite_stars;  ///< stars whose log-probability is NaN or infinite
    long long first_non_finite;           ///< the first such star, or star_none
};
/// Stars a block of the device star sum adds before the blocks are added (the likelihood kernels' block size).
inline constexpr int star_sum_block = 64;
/// Blocks of the device star sum over @p count stars.
constexpr int star_sum_blocks(int count) { return (count + star_sum_block - 1) / star_sum_block; }

/// StarSumPart::first_non_finite of a part without a non-finite star.
inline constexpr long long star_none = 0x7fffffffffffffffLL;

/// The likelihood added on the device (run_likelihood_sum).
struct StarSum {
    double likelihood = 0;     ///< the mean of the stars' log10 mixture probabilities
    long long zero_stars = 0;  ///< stars at the -238 penalty
    double kernel_ms = 0;      ///< time of the three kernels from CUDA events [ms]
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
    /// 1 + S values per star: run_likelihood_kernel() writes them star by star ([n x (1 + S) + c], efficiency
    /// applied); the device star sum component by component ([c x N + n], efficiency not applied)
    void* densities = nullptr;
    int sum_blocks = 0;               ///< blocks of the device star sum: star_sum_blocks(N)
    void* sum_parts = nullptr;        ///< StarSumPart per block, then one for the total
    std::unique_ptr<Event> densities_start;  ///< recorded before the device star sum's densities kernel
    std::unique_ptr<Event> densities_stop;   ///< recorded after it
    /// The stars' convolution points (tabulate_convolution()), which no fit parameter changes: point k of star n
    /// at [k x stride + n], its distance in conv_r and its weight in conv_qw; no table while conv_r is null.
    const void* conv_r = nullptr;
    const void* conv_qw = nullptr;              ///< see conv_r
    std::vector<double> conv_offsets;           ///< the quadrature's magnitude offsets the table was made for
    std::vector<double> conv_weights;           ///< and its weights
};

/// Runs the kernel over the resident stars @p stars on the CUDA queue @p queue (their device current),
/// downloads.
/// With @p densities false only the log-probabilities come back (a fit needs no more; the densities, for
/// the diagnostic likelihoods, are most of the transfer) and StarResults::densities stays empty.
StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                                  const model::Integrals& integrals, cudaStream_t queue, bool densities = true);

/// Allocates @p stars' star-sum buffers (sum_blocks parts and the total) in its memory; both constructors call it.
void allocate_star_sums(ResidentStars& stars);

/// The likelihood of the resident stars @p stars summed on the device, on the CUDA queue @p queue (their device
/// current): each star's log-probability is the value run_likelihood_kernel() downloads, and the stars are
/// added with a compensated sum in a fixed order (per block of 64 stars a tree, then the blocks), so the result
/// does not depend on timing and lies within about one rounding of the exact sum of those values. It is not
/// the bits of the host's plain sum in star order (assemble_likelihood). Only the total comes back; a star
/// without a finite value throws CudaError, as assemble_likelihood() does. The same as queue_star_densities()
/// then finish_likelihood_sum() on @p queue.
StarSum run_likelihood_sum(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                           const model::Integrals& integrals, cudaStream_t queue);

/// The first half of run_likelihood_sum(): queues the stars' densities under the model of @p setup on @p queue and
/// returns at once. They need no integral, so a fit queues them before the integral's kernels, on a queue of
/// their own, and the two run side by side.
void queue_star_densities(const geometry::IntegrationSetup& setup, const ResidentStars& stars, cudaStream_t queue);

/// Makes the table of @p stars' convolution points under the quadrature of @p setup (its convolve, offsets and
/// weights) on @p queue and waits: from then on queue_star_densities() reads each point's distance and weight from
/// it instead of computing a power and an exponential per point, the same values (the table's kernel computes
/// them as the densities kernel does). Its size is plan_convolution_table()'s. A model of another quadrature is
/// then refused with CudaError.
void tabulate_convolution(const geometry::IntegrationSetup& setup, ResidentStars& stars, cudaStream_t queue);

/// The second half: the mixture of the densities queue_star_densities() queued on the same @p queue (with the same
/// @p setup), weighted by @p integrals, and the stars' compensated sum; waits for @p queue. StarSum::kernel_ms is
/// the time of both halves' kernels, each between its own events (the first may have shared the GPU).
StarSum finish_likelihood_sum(const geometry::IntegrationSetup& setup, const ResidentStars& stars,
                              const model::Integrals& integrals, cudaStream_t queue);

/// Uploads the stars, runs the kernel in the given precision and star layout (SoA or AoS) on the CUDA
/// queue @p queue, downloads.
StarResults run_likelihood_kernel(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                                  const model::Integrals& integrals, bool double_precision, bool soa,
                                  cudaStream_t queue);

}  // namespace mwsep::cuda
