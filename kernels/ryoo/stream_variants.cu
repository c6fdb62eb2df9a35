// SAXPY at two access widths, and the two measurements of device-memory bandwidth it is compared with:
// the copy kernel and cudaMemcpy between two device buffers.
#include <algorithm>

#include "harness/check.hpp"
#include "ryoo/saxpy.cuh"
#include "ryoo/variants.hpp"

namespace ryoo {
namespace {

using namespace kernels;

/// Blocks for a grid-stride loop over @p items with 256 threads per block: one item per thread, at most
/// 2^31 - 1 blocks.
unsigned blocks_for(std::size_t items) {
    return static_cast<unsigned>(std::min<std::size_t>((items + 255) / 256, 0x7fffffffu));
}

/// SAXPY with the access width @p Access.
template <class Access>
StreamVariant saxpy_variant() {
    StreamVariant v;
    v.name = std::string("saxpy-") + (Access::width == 1 ? "scalar" : "vector");
    v.summary = Access::width == 1 ? "y <- alpha x + y, one float per thread" : "y <- alpha x + y, one float4 per thread";
    v.width = Access::width;
    v.bytes_per_element = 12;
    v.flops_per_element = 2;
    v.is_saxpy = true;
    v.function = reinterpret_cast<const void*>(&ryoo_saxpy<Access>);
    v.run = [](float alpha, const float* x, float* y, std::size_t count, cudaStream_t s) {
        ryoo_saxpy<Access><<<blocks_for(count / Access::width), 256, 0, s>>>(alpha, x, y, count);
        harness::check(cudaGetLastError(), "launch SAXPY");
    };
    return v;
}

}  // namespace

void add_stream_variants(harness::Registry<StreamVariant>& r) {
    r.add(saxpy_variant<ScalarAccess>());
    r.add(saxpy_variant<VectorAccess>());
    StreamVariant copy;
    copy.name = "copy-vector";
    copy.summary = "y <- x with float4 accesses (the bandwidth a simple kernel reaches)";
    copy.width = 4;
    copy.bytes_per_element = 8;
    copy.function = reinterpret_cast<const void*>(&ryoo_copy);
    copy.run = [](float, const float* x, float* y, std::size_t count, cudaStream_t s) {
        ryoo_copy<<<blocks_for(count / 4), 256, 0, s>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), count / 4);
        harness::check(cudaGetLastError(), "launch the copy kernel");
    };
    r.add(copy);
    StreamVariant memcpy;
    memcpy.name = "memcpy";
    memcpy.summary = "y <- x with cudaMemcpyAsync between two device buffers";
    memcpy.width = 1;
    memcpy.bytes_per_element = 8;
    memcpy.run = [](float, const float* x, float* y, std::size_t count, cudaStream_t s) {
        harness::check(cudaMemcpyAsync(y, x, count * sizeof(float), cudaMemcpyDeviceToDevice, s), "copy between device buffers");
    };
    r.add(memcpy);
}

}  // namespace ryoo
