// Microbenchmark: double-precision exponentials per second on the GPU, for the CUDA library's exp, the
// project's branch-free exp_nonpositive (the CPU's), and the table exponential exp_from_steps (the modern
// kernel's, its table in shared memory). Prints one CSV row per function: function,exps,seconds,
// exps_per_second, from the median of 5 timed launches. Each thread runs four independent chains so that
// the measurement is of throughput, not latency; the results are stored so nothing is optimised away.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include <algorithm>
#include <vector>

#include "mwsep/math/exp_nonpositive.hpp"
#include "mwsep/math/exp_table.hpp"

#define CHECK(x)                                                                            \
    do {                                                                                    \
        cudaError_t e = (x);                                                                \
        if (e != cudaSuccess) {                                                             \
            std::fprintf(stderr, "exp_throughput: %s: %s\n", #x, cudaGetErrorString(e));    \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

enum class Function { library, nonpositive, table };

template <Function F>
__device__ __forceinline__ double one_exp(double x, const mwsep::math::ExpTableEntry* table) {
    if constexpr (F == Function::library) return exp(x);
    else if constexpr (F == Function::nonpositive) return mwsep::math::exp_nonpositive(x);
    else return mwsep::math::exp_from_steps(x * mwsep::math::ExpTable::steps_per_unit, table);
}

template <Function F>
__global__ void chains(double* out, int iterations, const mwsep::math::ExpTableEntry* global_table) {
    __shared__ mwsep::math::ExpTableEntry table[mwsep::math::ExpTable::size];
    for (int i = threadIdx.x; i < mwsep::math::ExpTable::size; i += blockDim.x) table[i] = global_table[i];
    __syncthreads();
    double a = -0.001 * threadIdx.x, b = a - 0.5, c = a - 1.5, d = a - 3.0;
    for (int i = 0; i < iterations; ++i) {
        // Each new argument depends on the last result, stays in (-8, 0], and needs a full exp. (The table
        // version pays one extra multiply for the scale the modern kernel folds into its coefficients.)
        a = one_exp<F>(-a * 0.5 - 1.0, table) - 1.0;
        b = one_exp<F>(-b * 0.5 - 2.0, table) - 1.0;
        c = one_exp<F>(-c * 0.5 - 3.0, table) - 1.0;
        d = one_exp<F>(-d * 0.5 - 4.0, table) - 1.0;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

template <Function F>
void measure(const char* name, const mwsep::math::ExpTableEntry* table) {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int threads = 256, blocks = sms * 8, iterations = 4096;
    double* out = nullptr;
    CHECK(cudaMalloc(&out, sizeof(double) * threads * blocks));
    chains<F><<<blocks, threads>>>(out, 16, table);  // warm-up
    CHECK(cudaGetLastError());
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> times;
    for (int rep = 0; rep < 5; ++rep) {
        CHECK(cudaEventRecord(start));
        chains<F><<<blocks, threads>>>(out, iterations, table);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    const double median_s = times[times.size() / 2] / 1e3;
    const double exps = 4.0 * iterations * threads * double(blocks);
    std::printf("%s,%.0f,%.6f,%.4g\n", name, exps, median_s, exps / median_s);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(out));
}

int main() {
    std::vector<mwsep::math::ExpTableEntry> host(mwsep::math::ExpTable::size);
    mwsep::math::ExpTable::fill(host.data());
    mwsep::math::ExpTableEntry* table = nullptr;
    CHECK(cudaMalloc(&table, sizeof(mwsep::math::ExpTableEntry) * host.size()));
    CHECK(cudaMemcpy(table, host.data(), sizeof(mwsep::math::ExpTableEntry) * host.size(), cudaMemcpyHostToDevice));
    std::printf("function,exps,seconds,exps_per_second\n");
    measure<Function::library>("cuda_exp", table);
    measure<Function::nonpositive>("exp_nonpositive", table);
    measure<Function::table>("exp_from_steps", table);
    CHECK(cudaFree(table));
    return 0;
}
