// Microbenchmark: double-precision exponentials per second on the GPU, for the CUDA library's exp, the
// project's branch-free exp_nonpositive (the CPU's), and the table exponential exp_from_steps (the modern
// kernel's, its table in shared memory). Prints one CSV row per function: function,exps,seconds,
// exps_per_second, from the median of 5 timed launches. Each thread runs four independent chains so that
// the measurement is of throughput, not latency; the results are stored so nothing is optimised away.
//
// With --set lean it measures instead the table exponentials of the lean modern variants (exp_lean.hpp)
// beside exp_from_steps, each with its argument already in table steps (the scale folded into the chain's
// multiply-add, as the kernels fold it into their quadratics), and a chain of fused multiply-adds alone
// (the FP64 pipe's ceiling for dependent chains). Each runs twice: "uniform", where every lane's chain
// converges to the same argument (one table entry per warp: no bank conflicts), and "spread", where each
// lane's converges to its own argument (distinct entries per lane: the conflicts a warp of neighbouring
// cells can meet). Columns: function,arguments,exps,seconds,exps_per_second. --only FUNCTION:ARGUMENTS
// --once runs one warm-up and one timed launch of one row, for a profiler.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mwsep/math/exp_lean.hpp"
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

/// The median over @p reps timed calls of @p launch (one kernel launch each), in seconds, by CUDA events.
template <class Launch>
double median_seconds(Launch launch, int reps) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> times;
    for (int rep = 0; rep < reps; ++rep) {
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2] / 1e3;
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
    const double median_s = median_seconds([&] { chains<F><<<blocks, threads>>>(out, iterations, table); }, 5);
    const double exps = 4.0 * iterations * threads * double(blocks);
    std::printf("%s,%.0f,%.6f,%.4g\n", name, exps, median_s, exps / median_s);
    CHECK(cudaFree(out));
}

// ---- The lean set ----

enum class Lean { steps, biased, table8, dfma };

/// Shared tables of the lean set: the 16-byte table (plain or pre-biased) and the 8-byte one.
struct LeanTables {
    const mwsep::math::ExpTableEntry* plain;
    const mwsep::math::ExpTableEntry* biased;
    const double* eight;
};

template <Lean F>
__device__ __forceinline__ double lean_exp(double x_steps, const mwsep::math::ExpTableEntry* t16, const double* t8) {
    if constexpr (F == Lean::steps) return mwsep::math::exp_from_steps(x_steps, t16);
    else if constexpr (F == Lean::biased) return mwsep::math::exp_biased(x_steps, t16);
    else return mwsep::math::exp_table8(x_steps, t8);
}

/// Four chains per thread, x <- exp(x_steps) - 1 with x_steps = x * slope + offset (one fused multiply-add,
/// in table steps). @p spread adds a lane-dependent offset, so each lane's chain settles on its own
/// argument and table entry. Lean::dfma runs eight chains of dependent multiply-adds instead.
template <Lean F>
__global__ void lean_chains(double* out, int iterations, LeanTables g, double steps, bool spread) {
    __shared__ mwsep::math::ExpTableEntry t16[mwsep::math::ExpTable::size];
    __shared__ double t8[mwsep::math::ExpTable8::size];
    const mwsep::math::ExpTableEntry* src16 = F == Lean::biased ? g.biased : g.plain;
    for (int i = threadIdx.x; i < mwsep::math::ExpTable::size; i += blockDim.x) t16[i] = src16[i];
    for (int i = threadIdx.x; i < mwsep::math::ExpTable8::size; i += blockDim.x) t8[i] = g.eight[i];
    __syncthreads();
    const double lane = spread ? 0.0173 * (threadIdx.x % 32) : 0.0;
    if constexpr (F == Lean::dfma) {
        double v[8];
        for (int c = 0; c < 8; ++c) v[c] = 1e-3 * (c + threadIdx.x);
        for (int i = 0; i < iterations; ++i)
#pragma unroll
            for (int c = 0; c < 8; ++c) v[c] = fma(v[c], 0.999999, 1e-9);
        out[blockIdx.x * blockDim.x + threadIdx.x] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    } else {
        const double slope = -0.5 * steps;
        const double o0 = -(1.0 + lane) * steps, o1 = -(2.0 + lane) * steps, o2 = -(3.0 + lane) * steps,
                     o3 = -(4.0 + lane) * steps;
        double a = -0.001 * threadIdx.x, b = a - 0.5, c = a - 1.5, d = a - 3.0;
        for (int i = 0; i < iterations; ++i) {
            a = lean_exp<F>(fma(a, slope, o0), t16, t8) - 1.0;
            b = lean_exp<F>(fma(b, slope, o1), t16, t8) - 1.0;
            c = lean_exp<F>(fma(c, slope, o2), t16, t8) - 1.0;
            d = lean_exp<F>(fma(d, slope, o3), t16, t8) - 1.0;
        }
        out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
    }
}

/// Times one row of the lean set (median of 5 launches, or one launch with @p once) and prints it.
template <Lean F>
void measure_lean(const char* name, bool spread, const LeanTables& g, bool once) {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int threads = 256, blocks = sms * 8, iterations = 4096;
    const double steps = F == Lean::table8 ? mwsep::math::ExpTable8::steps_per_unit : mwsep::math::ExpTable::steps_per_unit;
    double* out = nullptr;
    CHECK(cudaMalloc(&out, sizeof(double) * threads * blocks));
    lean_chains<F><<<blocks, threads>>>(out, 16, g, steps, spread);  // warm-up
    CHECK(cudaGetLastError());
    const double median_s =
        median_seconds([&] { lean_chains<F><<<blocks, threads>>>(out, iterations, g, steps, spread); }, once ? 1 : 5);
    // Every chain must have stayed finite: a NaN or infinity means the function or its table is broken.
    std::vector<double> host(static_cast<size_t>(threads) * blocks);
    CHECK(cudaMemcpy(host.data(), out, sizeof(double) * host.size(), cudaMemcpyDeviceToHost));
    for (double v : host)
        if (!std::isfinite(v)) {
            std::fprintf(stderr, "exp_throughput: %s (%s) produced a non-finite chain value\n", name, spread ? "spread" : "uniform");
            std::exit(1);
        }
    const double per_chain = F == Lean::dfma ? 8.0 : 4.0;  // operations per iteration and thread
    const double exps = per_chain * iterations * threads * double(blocks);
    std::printf("%s,%s,%.0f,%.6f,%.4g\n", name, spread ? "spread" : "uniform", exps, median_s, exps / median_s);
    CHECK(cudaFree(out));
}

/// The lean set: every row, or only @p only ("function:arguments").
int run_lean(const std::string& only, bool once) {
    std::vector<mwsep::math::ExpTableEntry> plain(mwsep::math::ExpTable::size), biased(mwsep::math::ExpTable::size);
    std::vector<double> eight(mwsep::math::ExpTable8::size);
    mwsep::math::ExpTable::fill(plain.data());
    mwsep::math::ExpTableBiased::fill(biased.data());
    mwsep::math::ExpTable8::fill(eight.data());
    LeanTables g{};
    mwsep::math::ExpTableEntry *d_plain = nullptr, *d_biased = nullptr;
    double* d_eight = nullptr;
    CHECK(cudaMalloc(&d_plain, sizeof(plain[0]) * plain.size()));
    CHECK(cudaMalloc(&d_biased, sizeof(biased[0]) * biased.size()));
    CHECK(cudaMalloc(&d_eight, sizeof(double) * eight.size()));
    CHECK(cudaMemcpy(d_plain, plain.data(), sizeof(plain[0]) * plain.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_biased, biased.data(), sizeof(biased[0]) * biased.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_eight, eight.data(), sizeof(double) * eight.size(), cudaMemcpyHostToDevice));
    g.plain = d_plain, g.biased = d_biased, g.eight = d_eight;
    struct Row {
        const char* name;
        void (*fn)(const char*, bool, const LeanTables&, bool);
    };
    const Row rows[] = {{"exp_from_steps", &measure_lean<Lean::steps>},
                        {"exp_biased", &measure_lean<Lean::biased>},
                        {"exp_table8", &measure_lean<Lean::table8>},
                        {"dfma", &measure_lean<Lean::dfma>}};
    if (!once) std::printf("function,arguments,exps,seconds,exps_per_second\n");
    bool found = only.empty();
    for (const auto& row : rows)
        for (bool spread : {false, true}) {
            if (row.fn == &measure_lean<Lean::dfma> && spread) continue;  // no table, no arguments
            const std::string id = std::string(row.name) + ":" + (spread ? "spread" : "uniform");
            if (!only.empty() && only != id) continue;
            found = true;
            row.fn(row.name, spread, g, once);
        }
    CHECK(cudaFree(d_plain));
    CHECK(cudaFree(d_biased));
    CHECK(cudaFree(d_eight));
    if (!found) {
        std::fprintf(stderr, "exp_throughput: --only %s names no row (function:uniform or function:spread)\n", only.c_str());
        return 2;
    }
    return 0;
}

int main(int argc, char** argv) {
    std::string set = "library", only;
    bool once = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--set" && i + 1 < argc) set = argv[++i];
        else if (a == "--only" && i + 1 < argc) only = argv[++i];
        else if (a == "--once") once = true;
        else {
            std::fprintf(stderr, "exp_throughput: unknown argument %s (expected --set library|lean, --only F:A, --once)\n", a.c_str());
            return 2;
        }
    }
    if (set == "lean") return run_lean(only, once);
    if (set != "library" || !only.empty() || once) {
        std::fprintf(stderr, "exp_throughput: --set is library or lean; --only and --once apply to --set lean\n");
        return 2;
    }
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
