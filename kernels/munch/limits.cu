// The kernels of the limits measurements.
#include <algorithm>

#include "harness/check.hpp"
#include "munch/limits.hpp"

namespace munch::gpu {

namespace {

/// Nothing: the launch is what is measured.
__global__ void empty_kernel() {}

/// peak_chains independent chains, so the FMA pipe never waits for a previous result; the constants keep
/// every value finite and away from denormals for any iteration count.
template <class T>
__global__ void __launch_bounds__(peak_threads) peak_kernel(int iterations, T seed, T* sink) {
    T v[peak_chains];
#pragma unroll
    for (int c = 0; c < peak_chains; ++c) v[c] = seed + static_cast<T>(threadIdx.x + c);
    const T a = static_cast<T>(0.999999), b = static_cast<T>(1e-7);
    // Unrolled, so that the loop's counter and branch are a few instructions per hundred FMAs.
#pragma unroll 16
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < peak_chains; ++c) v[c] = v[c] * a + b;
    }
    T sum = 0;
#pragma unroll
    for (int c = 0; c < peak_chains; ++c) sum += v[c];
    if (sum == static_cast<T>(-1)) *sink = sum;  // never true; keeps the chains alive
}

/// target = source, 16 bytes per access, grid-stride.
__global__ void stream_copy_kernel(const float4* __restrict__ source, float4* __restrict__ target, std::size_t count4) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count4; i += stride)
        target[i] = source[i];
}

}  // namespace

void launch_empty(dim3 grid, dim3 block, cudaStream_t stream) {
    empty_kernel<<<grid, block, 0, stream>>>();
    harness::check(cudaGetLastError(), "launch the empty kernel");
}

void launch_peak_fp32(int blocks, int iterations, float seed, float* sink, cudaStream_t stream) {
    peak_kernel<float><<<blocks, peak_threads, 0, stream>>>(iterations, seed, sink);
    harness::check(cudaGetLastError(), "launch the float peak kernel");
}

void launch_peak_fp64(int blocks, int iterations, double seed, double* sink, cudaStream_t stream) {
    peak_kernel<double><<<blocks, peak_threads, 0, stream>>>(iterations, seed, sink);
    harness::check(cudaGetLastError(), "launch the double peak kernel");
}

void launch_stream_copy(const float* source, float* target, std::size_t count, cudaStream_t stream) {
    int device = 0, sms = 0;
    harness::check(cudaGetDevice(&device), "read the device");
    harness::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "read the SM count");
    const std::size_t count4 = count / 4;
    const auto wanted = (count4 + 255) / 256;
    const auto blocks = static_cast<unsigned>(std::min<std::size_t>(wanted ? wanted : 1, static_cast<std::size_t>(sms) * 16));
    stream_copy_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const float4*>(source), reinterpret_cast<float4*>(target),
                                                   count4);
    harness::check(cudaGetLastError(), "launch the stream copy");
}

}  // namespace munch::gpu
