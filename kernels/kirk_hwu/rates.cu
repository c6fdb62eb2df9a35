/// @file rates.cu
/// @brief The rate kernels: every thread runs eight independent dependency chains of one operation, so that
/// the unit that executes it, not the latency of one chain, limits the rate.
#include <stdexcept>

#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "rates.hpp"

namespace kirk_hwu::gpu {

/// Independent dependency chains per thread: enough to cover the pipes' latency.
constexpr int chains = 8;
/// Iterations of each chain.
constexpr int iterations = 4096;
/// Iterations of each FFMA chain: the FFMA kernel is eight times shorter per iteration than the others, so
/// it runs eight times as many, keeping the launch's fixed cost below a per mille of its time.
constexpr int ffma_iterations = 8 * iterations;
/// Threads per block of the rate kernels.
constexpr int threads = 256;

// [rate-kernels-begin]
/// FP32 fused multiply-adds: chains × ffma_iterations per thread.
__global__ void rate_ffma(float seed, float* out) {
    float v[chains];
#pragma unroll
    for (int c = 0; c < chains; ++c) v[c] = seed + c + threadIdx.x;
    // Unrolled so that the loop's own counter and branch are a negligible share of the issued instructions.
#pragma unroll 16
    for (int it = 0; it < ffma_iterations; ++it)
#pragma unroll
        for (int c = 0; c < chains; ++c) v[c] = fmaf(v[c], 0.9999f, 1e-7f);
    float s = 0;
#pragma unroll
    for (int c = 0; c < chains; ++c) s += v[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/// Special-function sin+cos pairs of one argument (the MRI inner loop's pair), each feeding the next.
__global__ void rate_sincos(float seed, float* out) {
    float v[chains];
#pragma unroll
    for (int c = 0; c < chains; ++c) v[c] = seed + 0.1f * c + 1e-3f * threadIdx.x;
#pragma unroll 4
    for (int it = 0; it < iterations; ++it)
#pragma unroll
        for (int c = 0; c < chains; ++c) v[c] = __sinf(v[c]) + __cosf(v[c]);
    float s = 0;
#pragma unroll
    for (int c = 0; c < chains; ++c) s += v[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/// Reciprocal square roots as the Coulomb loop writes them (`rsqrtf`), each feeding the next.
__global__ void rate_rsqrt(float seed, float* out) {
    float v[chains];
#pragma unroll
    for (int c = 0; c < chains; ++c) v[c] = seed + c + threadIdx.x;
#pragma unroll 4
    for (int it = 0; it < iterations; ++it)
#pragma unroll
        for (int c = 0; c < chains; ++c) v[c] = rsqrtf(v[c]);
    float s = 0;
#pragma unroll
    for (int c = 0; c < chains; ++c) s += v[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// [rate-kernels-end]

const std::vector<std::string>& rate_operations() {
    static const std::vector<std::string> ops = {"ffma", "sincos_pair", "rsqrt"};
    return ops;
}

RateSample time_rate(const std::string& operation, cudaStream_t stream) {
    int device = 0, sms = 0;
    harness::check(cudaGetDevice(&device), "read the current device");
    harness::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "read the SM count");
    const int blocks = sms * 16;  // many waves of full occupancy
    harness::require_device_memory(sizeof(float) * blocks * threads, "the rate kernel's output");
    float* out = nullptr;
    harness::check(cudaMalloc(&out, sizeof(float) * blocks * threads), "allocate the rate output");
    harness::Event start, stop;
    start.record(stream);
    if (operation == "ffma") rate_ffma<<<blocks, threads, 0, stream>>>(1.0f, out);
    else if (operation == "sincos_pair") rate_sincos<<<blocks, threads, 0, stream>>>(0.5f, out);
    else if (operation == "rsqrt") rate_rsqrt<<<blocks, threads, 0, stream>>>(2.0f, out);
    else {
        cudaFree(out);
        throw std::invalid_argument("unknown rate operation '" + operation + "'; the valid ones are: ffma, sincos_pair, rsqrt");
    }
    stop.record(stream);
    harness::check(cudaGetLastError(), "launch a rate kernel");
    harness::check(cudaStreamSynchronize(stream), "run a rate kernel");
    RateSample s;
    s.ms = stop.since(start);
    s.operations = static_cast<double>(blocks) * threads * chains * (operation == "ffma" ? ffma_iterations : iterations);
    cudaFree(out);
    return s;
}

}  // namespace kirk_hwu::gpu
