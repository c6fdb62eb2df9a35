// The read-only probe of read_probe.hpp.
#include "read_probe.hpp"

#include "harness/check.hpp"

namespace harness_test {
namespace {

__global__ void read_all(const float4* in, std::size_t quads, float* sink) {
    float sum = 0.0f;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < quads; i += stride) {
        const float4 v = in[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (sum == 1.0f) *sink = sum;
}

}  // namespace

void enqueue_read_all(const float* in, std::size_t n, float* sink, cudaStream_t stream) {
    int device = 0, sms = 0;
    harness::check(cudaGetDevice(&device), "read the current device");
    harness::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "count the SMs");
    constexpr int threads = 256;
    read_all<<<4 * sms, threads, 0, stream>>>(reinterpret_cast<const float4*>(in), n / 4, sink);
    harness::check(cudaGetLastError(), "launch the read probe");
}

}  // namespace harness_test
