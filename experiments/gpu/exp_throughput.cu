// Microbenchmark: double-precision exponentials per second on the GPU, for the CUDA library's exp and for
// the project's branch-free exp_nonpositive (the modern kernels' exponential). Prints one CSV row per
// function: function,exps,seconds,exps_per_second. Each thread runs four independent chains so that the
// measurement is of throughput, not latency; the results are summed and printed so nothing is optimised away.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "math/exp_nonpositive.hpp"

#define CHECK(x)                                                                            \
    do {                                                                                    \
        cudaError_t e = (x);                                                                \
        if (e != cudaSuccess) {                                                             \
            std::fprintf(stderr, "exp_throughput: %s: %s\n", #x, cudaGetErrorString(e));    \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

template <bool Library>
__global__ void chains(double* out, int iterations) {
    double a = -0.001 * threadIdx.x, b = a - 0.5, c = a - 1.5, d = a - 3.0;
    for (int i = 0; i < iterations; ++i) {
        // Each new argument depends on the last result, stays in (-8, 0], and needs a full exp.
        if (Library) {
            a = exp(-a * 0.5 - 1.0) - 1.0;
            b = exp(-b * 0.5 - 2.0) - 1.0;
            c = exp(-c * 0.5 - 3.0) - 1.0;
            d = exp(-d * 0.5 - 4.0) - 1.0;
        } else {
            a = mwsep::math::exp_nonpositive(-a * 0.5 - 1.0) - 1.0;
            b = mwsep::math::exp_nonpositive(-b * 0.5 - 2.0) - 1.0;
            c = mwsep::math::exp_nonpositive(-c * 0.5 - 3.0) - 1.0;
            d = mwsep::math::exp_nonpositive(-d * 0.5 - 4.0) - 1.0;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

template <bool Library>
void measure(const char* name) {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int threads = 256, blocks = sms * 8, iterations = 4096;
    double* out = nullptr;
    CHECK(cudaMalloc(&out, sizeof(double) * threads * blocks));
    chains<Library><<<blocks, threads>>>(out, 16);  // warm-up
    CHECK(cudaGetLastError());
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float best = 1e30f;
    for (int rep = 0; rep < 5; ++rep) {
        CHECK(cudaEventRecord(start));
        chains<Library><<<blocks, threads>>>(out, iterations);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = ms < best ? ms : best;
    }
    const double exps = 4.0 * iterations * threads * double(blocks);
    std::printf("%s,%.0f,%.6f,%.4g\n", name, exps, best / 1e3, exps / (best / 1e3));
    CHECK(cudaFree(out));
}

int main() {
    std::printf("function,exps,seconds,exps_per_second\n");
    measure<true>("cuda_exp");
    measure<false>("exp_nonpositive");
    return 0;
}
