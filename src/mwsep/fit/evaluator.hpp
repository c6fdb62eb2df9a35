/// @file evaluator.hpp
/// @brief Batched evaluation of candidate parameter vectors: the one interface through which the
/// optimizer sees the likelihood, whether the batch runs on CPU threads, on every GPU of the host, or
/// over MPI ranks.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mwsep/fit/integral_cache.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::fit {

/// A batch of candidates, each a parameter vector in search-vector order.
using Batch = std::vector<std::vector<double>>;

/// What every evaluator computes with: the work unit (its optimised parameters are overwritten per
/// candidate), the stars and the r binning.
struct FitData {
    model::AstronomyParameters work_unit;                   ///< the work unit as read
    model::StarCatalogue stars;                             ///< the catalogue being fitted
    model::RBinning r_binning = model::RBinning::magnitude; ///< spacing of the r bins (spec 2.8)
    /// CPU: integrate with the compressed quadrature (cpu/compressed.hpp, a different algorithm with a
    /// controlled error) instead of the fast exact integrator. The GPU takes the variant it is given.
    bool compressed = false;
    /// Keep each candidate's component integrals (fit/integral_cache.hpp) and integrate only the components a
    /// candidate changes: the same values, bit for bit, for the exact integrators; never with the compressed one
    /// (its error controller looks at every component of a cell).
    bool integral_cache = true;
    /// The GPU evaluator leaves the per-candidate work around the kernels to the device (ResidentDevice's
    /// DeviceWork): the stars added there (compensated, in a fixed order; only the total comes back) and, for the
    /// compressed integral, the skip thresholds computed there. The likelihood then differs from `mwsep run`'s
    /// bits by about a rounding (1e-16 relative); false evaluates each candidate as `mwsep run` does.
    bool device_work = true;
    /// With device_work: the stars' convolution points (distance and weight of each magnitude, which no fit
    /// parameter moves) kept in a device table made once instead of computed for every candidate; the same
    /// bits. False saves the table's device memory (two values per star and point).
    bool convolution_table = true;
};

/// Evaluates batches of candidates. The value of a candidate is its likelihood L (the mean log10 mixture
/// probability of the stars, spec 4.4), or NaN where the candidate has no finite likelihood (an integral
/// that is not positive, say). Each candidate's value depends on the candidate alone: never on the batch
/// it came in, its position there, or the worker that computed it.
class BatchEvaluator {
public:
    virtual ~BatchEvaluator() = default;
    /// The likelihood of every candidate of @p batch, in batch order.
    virtual std::vector<double> evaluate(const Batch& batch) = 0;
    /// What computes the batches, e.g. "2 x NVIDIA H200 (modern-f64)" or "CPU ... (16 threads)".
    virtual std::string description() const = 0;
    /// Where the evaluations' time went so far, as (phase, seconds summed over every evaluation) pairs, for
    /// an evaluator that measures it (the GPU evaluator: host preparation, integral kernels, likelihood
    /// kernel, and each evaluation's whole time on its device); empty otherwise.
    virtual std::vector<std::pair<std::string, double>> phase_seconds() const { return {}; }
    /// How the integrals of the evaluations so far were obtained, for an evaluator with an integral cache
    /// (FitData::integral_cache); nothing otherwise.
    virtual std::optional<IntegralWork> integral_work() const { return std::nullopt; }
};

/// One candidate on the CPU with the fast integrator on @p threads threads; NaN when it has no finite
/// likelihood. The value does not depend on @p threads (the fast integrator's sums are ordered).
double cpu_likelihood(const FitData& data, const std::vector<double>& x, int threads);

/// cpu_likelihood() with the component integrals from @p cache where it has them (the same value, bit for
/// bit); nullptr integrates every component. IntegralCacheMismatch propagates.
double cpu_likelihood(const FitData& data, const std::vector<double>& x, int threads, IntegralCache* cache);

/// Why @p x has no finite likelihood on the CPU (the model's or the stars' message), for a refusal.
std::string why_not_finite(const FitData& data, const std::vector<double>& x);

/// The CPU evaluator: the candidates of a batch spread over @p threads threads (0: all cores), one
/// candidate per thread; a batch of one candidate uses every thread for it.
std::unique_ptr<BatchEvaluator> make_cpu_evaluator(const FitData& data, int threads);

/// Whether this build has the GPU evaluator.
bool have_gpu_evaluator();

/// The GPU evaluator: one host thread per device of @p devices (empty: every device with double
/// precision), each with its own context, evaluating the batch's candidates as they come with kernel
/// variant @p variant. Before anything is allocated, each device's memory is checked against what the fit
/// keeps there (ResidentDevice::plan(): it does not grow with the batch or the population) plus the same for
/// @p later_variants, the evaluators the caller will make on the same devices while this one lives (the
/// exact re-evaluation of a compressed or single-precision fit's optimum): a shortage is refused now
/// (harness::DeviceMemoryShortage), not after the fit. Throws std::runtime_error in a build without CUDA.
std::unique_ptr<BatchEvaluator> make_gpu_evaluator(const FitData& data, const std::string& variant,
                                                   const std::vector<int>& devices,
                                                   const std::vector<std::string>& later_variants = {});

/// The device of the rank with node-local rank @p local_rank when each rank of a node takes one GPU: the
/// (local_rank mod count)-th of the devices that can run kernel variant @p variant, in the order
/// `--devices` numbers them, so ranks beyond the GPU count share GPUs round-robin. Throws
/// std::runtime_error without a device or in a build without CUDA.
int device_for_local_rank(int local_rank, const std::string& variant);

}  // namespace mwsep::fit
