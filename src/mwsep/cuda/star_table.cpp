#include "mwsep/cuda/star_table.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

#include "mwsep/geometry/tables.hpp"
#include "mwsep/likelihood_kernel.hpp"
#include "mwsep/tidal_streams.hpp"

namespace mwsep::cuda {
namespace {

template <class Real>
std::vector<Real> fill(const model::StarCatalogue& stars, int stride, bool soa) {
    const int count = static_cast<int>(stars.size());
    std::vector<Real> table(static_cast<std::size_t>(stride) * 5, Real(0));
    for (int n = 0; n < count; ++n) {
        const auto d = geometry::sky_direction(stars.l[n], stars.b[n]);
        const Real f[5] = {Real(d.sinb), Real(d.sinl), Real(d.cosb), Real(d.cosl), Real(stars.r[n])};
        for (int i = 0; i < 5; ++i)
            table[soa ? static_cast<std::size_t>(i) * stride + n : static_cast<std::size_t>(n) * 5 + i] = f[i];
    }
    return table;
}

}  // namespace

StarTable make_star_table(const model::StarCatalogue& stars, bool double_precision, bool soa) {
    StarTable t;
    t.double_precision = double_precision;
    t.soa = soa;
    t.count = static_cast<int>(stars.size());
    t.stride = static_cast<int>(star_stride(stars.size()));
    if (double_precision) t.f64 = fill<double>(stars, t.stride, soa);
    else t.f32 = fill<float>(stars, t.stride, soa);
    return t;
}

void plan_star_memory(std::size_t count, bool double_precision, int n_streams, harness::DevicePlan& plan) {
    const std::size_t real = double_precision ? sizeof(double) : sizeof(float);
    const std::size_t stride = star_stride(count);
    plan.add("the star table", stride * 5, real)
        .add("per-star results", count, real)
        .add("per-star densities", count * (1 + static_cast<std::size_t>(std::max(n_streams, 0))), real)
        .add<StarSumPart>("the star sums (one per block of stars, and the total)",
                          static_cast<std::size_t>(star_sum_blocks(static_cast<int>(count))) + 1);
}

void plan_convolution_table(std::size_t count, int n_conv, bool double_precision, harness::DevicePlan& plan) {
    const std::size_t real = double_precision ? sizeof(double) : sizeof(float);
    const std::size_t stride = star_stride(count);
    plan.add("the stars' convolution points (distance and weight of each)",
             2 * stride * static_cast<std::size_t>(std::max(n_conv, 0)), real);
}

// Declared with the other constructor in likelihood_kernel.hpp; the buffers as that one allocates them.
ResidentStars::ResidentStars(const StarTable& table, int n_streams)
    : double_precision(table.double_precision), soa(table.soa), count(table.count), stride(table.stride) {
    if (n_streams > max_streams)
        throw CudaError("the CUDA kernels support at most " + std::to_string(max_streams) + " streams");
    const std::size_t dens_count = static_cast<std::size_t>(count) * (1 + n_streams);
    if (double_precision) {
        stars = mem.upload(table.f64, "upload stars");
        log_probability = mem.allocate<double>(count, "allocate per-star results");
        densities = mem.allocate<double>(dens_count, "allocate per-star densities");
    } else {
        stars = mem.upload(table.f32, "upload stars");
        log_probability = mem.allocate<float>(count, "allocate per-star results");
        densities = mem.allocate<float>(dens_count, "allocate per-star densities");
    }
    allocate_star_sums(*this);
}

}  // namespace mwsep::cuda
