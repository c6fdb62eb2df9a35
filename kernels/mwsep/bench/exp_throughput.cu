// `mwsep exp-throughput`: double-precision exponentials per second on the GPU, for the CUDA library's exp,
// the project's branch-free exp_nonpositive (the CPU's), and the table exponential exp_from_steps (the modern
// kernel's, its table in shared memory). Prints one CSV row per function: function,exps,seconds,
// exps_per_second, seconds being the median of the timed launches. Each thread runs four independent chains
// so that the measurement is of throughput, not latency; the results are stored so nothing is optimised away.
//
// With --set lean it measures instead the table exponentials of the lean modern variants (exp_lean.hpp)
// beside exp_from_steps, each with its argument already in table steps (the scale folded into the chain's
// multiply-add, as the kernels fold it into their quadratics), and a chain of fused multiply-adds alone
// (the FP64 pipe's ceiling for dependent chains). Each runs twice: "uniform", where every lane's chain
// converges to the same argument (one table entry per warp: no bank conflicts), and "spread", where each
// lane's converges to its own argument (distinct entries per lane: the conflicts a warp of neighbouring
// cells can meet). Columns: function,arguments,exps,seconds,exps_per_second. --only FUNCTION:ARGUMENTS
// --once runs one checked and one timed launch of one row, for a profiler.
//
// With --set chains it asks what the lean kernels' exponential (exp_table8, its argument's multiply-add
// included) can get out of the FP64 pipe with more or fewer independent chains per thread: rows of 1, 2, 3,
// 4, 6 and 8 chains of exp_table8 (one table entry per warp), each beside as many chains of fused
// multiply-adds alone, with the registers the compiler gave each kernel and the warps per SM that leaves
// resident. Columns: function,arguments,chains,registers,warps_per_sm,exps,seconds,exps_per_second.
//
// Every row's first launch (the warm-up) is checked before any is timed: each chain x <- exp(-x/2 - k) - 1
// contracts to its fixed point, which the host finds in long double with the C library's exponential, and
// the fused multiply-add chains have a closed form; every thread's result must lie within 1e-10 (relative)
// of that. The timed launches go through the measurement engine (harness::measure: CUDA events, the stop
// rule, the clock monitor; --cold flushes the L2 before each).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/clock_monitor.hpp"
#include "harness/device_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "harness/measure_options.hpp"
#include "harness/options.hpp"
#include "mwsep/bench/bench_options.hpp"
#include "mwsep/bench/commands.hpp"
#include "mwsep/math/exp_lean.hpp"
#include "mwsep/math/exp_nonpositive.hpp"
#include "mwsep/math/exp_table.hpp"

namespace mwsep::bench {
namespace {

using harness::check;

/// Threads per block of every launch.
constexpr int threads = 256;
/// Chain iterations of every launch.
constexpr int iterations = 4096;
/// Every thread's result against the host's value: the largest relative difference allowed.
constexpr double tolerance = 1e-10;

/// The exponential of the library set.
enum class Function {
    library,      ///< the CUDA library's exp
    nonpositive,  ///< the branch-free exp_nonpositive
    table,        ///< the table exponential exp_from_steps, scaled from natural units
};

/// exp(@p x) by the function @p F (@p table: the 16-byte table in shared memory).
template <Function F>
__device__ __forceinline__ double one_exp(double x, const mwsep::math::ExpTableEntry* table) {
    if constexpr (F == Function::library) return exp(x);
    else if constexpr (F == Function::nonpositive) return mwsep::math::exp_nonpositive(x);
    else return mwsep::math::exp_from_steps(x * mwsep::math::ExpTable::steps_per_unit, table);
}

/// Four dependent chains per thread of exponentials by @p F, @p iterations steps each; their sum to @p out.
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

// ---- The lean set ----

/// The function of a lean-set row.
enum class Lean {
    steps,   ///< exp_from_steps, the argument in table steps
    biased,  ///< exp_biased: pre-biased entries and a clamp
    table8,  ///< exp_table8: eight-byte entries, degree-3 polynomial
    dfma,    ///< fused multiply-adds alone
};

/// Shared tables of the lean set: the 16-byte table (plain or pre-biased) and the 8-byte one.
struct LeanTables {
    const mwsep::math::ExpTableEntry* plain;   ///< exp_from_steps's table
    const mwsep::math::ExpTableEntry* biased;  ///< the pre-biased table of exp_biased
    const double* eight;                       ///< the eight-byte table of exp_table8
};

/// exp of @p x_steps table steps by @p F, from the shared tables @p t16 and @p t8.
template <Lean F>
__device__ __forceinline__ double lean_exp(double x_steps, const mwsep::math::ExpTableEntry* t16, const double* t8) {
    if constexpr (F == Lean::steps) return mwsep::math::exp_from_steps(x_steps, t16);
    else if constexpr (F == Lean::biased) return mwsep::math::exp_biased(x_steps, t16);
    else return mwsep::math::exp_table8(x_steps, t8);
}

/// The lane offset of a chain's argument: 0 (uniform) or lane-dependent (spread).
__host__ __device__ inline double lane_offset(bool spread, unsigned thread) { return spread ? 0.0173 * (thread % 32) : 0.0; }

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
    const double lane = lane_offset(spread, threadIdx.x);
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

// ---- The host's values ----

/// What every exponential chain of a thread settles on: the sum over k = 1..@p chains of the fixed point of
/// x = exp(-x/2 - k - @p lane) - 1 (a contraction: |d/dx| < 0.31 on the chains' range), found in long double.
double settled_sum(double lane, int chains = 4) {
    long double sum = 0;
    for (int k = 1; k <= chains; ++k) {
        long double x = 0;
        for (int i = 0; i < 200; ++i) x = std::exp(-x / 2 - k - static_cast<long double>(lane)) - 1;
        sum += x;
    }
    return static_cast<double>(sum);
}

/// The @p chains fused multiply-add chains of thread @p thread after @p n iterations, summed: v <- r v + s
/// from v0 = 1e-3 (c + thread) has v_n = r^n (v0 - f) + f with f = s / (1 - r), in long double.
double dfma_sum(unsigned thread, int n, int chains = 8) {
    const long double r = 0.999999, s = 1e-9, f = s / (1 - r), rn = std::pow(r, static_cast<long double>(n));
    long double sum = 0;
    for (unsigned c = 0; c < static_cast<unsigned>(chains); ++c) sum += rn * (static_cast<long double>(1e-3 * (c + thread)) - f) + f;
    return static_cast<double>(sum);
}

/// The command's device, stream, clock monitor and output buffer.
struct Bench {
    /// The device's stream, monitor and memory, for the measurement @p measure (@p one_launch: --once).
    Bench(const harness::MeasureOptions& measure, bool one_launch) : options(measure), once(one_launch) {}
    harness::MeasureOptions options;                               ///< the rule of every row's timed launches
    bool once = false;                                             ///< one row, one timed launch, no header
    int blocks = 0;                                                ///< blocks per launch (8 per SM)
    harness::Stream stream;                                        ///< every launch's stream
    harness::ClockMonitor monitor{harness::current_pci_bus_id()};  ///< the SM clock during each sample
    harness::DeviceMemory memory;                                  ///< the tables and the output
    double* out = nullptr;                                         ///< one result per thread
    std::vector<double> host;                                      ///< the results downloaded for the check
};

/// One row: a launch of @p launch (also the warm-up) checked thread by thread against @p expected, then the
/// timed launches; prints the CSV line (with @p arguments unless empty, then @p extra, the columns of the
/// chains set ending in a comma, unless empty) and the measurement on stderr.
void run_row(Bench& b, const std::string& function, const std::string& arguments, double exps,
             const std::function<void(double*, cudaStream_t)>& launch, const std::function<double(unsigned)>& expected,
             const std::string& extra = "") {
    const cudaStream_t s = b.stream.get();
    const std::string what = function + (arguments.empty() ? "" : " (" + arguments + ")");
    launch(b.out, s);
    check(cudaGetLastError(), "launch the checked chains");
    check(cudaMemcpyAsync(b.host.data(), b.out, sizeof(double) * b.host.size(), cudaMemcpyDeviceToHost, s), "download the chains");
    check(cudaStreamSynchronize(s), "run the checked chains");
    std::vector<double> by_thread(threads);  // the host's value depends on the thread's index in its block alone
    for (unsigned t = 0; t < static_cast<unsigned>(threads); ++t) by_thread[t] = expected(t);
    for (std::size_t t = 0; t < b.host.size(); ++t) {
        const double want = by_thread[t % threads], got = b.host[t];
        if (!(std::fabs(got - want) <= tolerance * std::fabs(want)))
            throw std::runtime_error("mwsep exp-throughput: " + what + ": thread " + std::to_string(t) + " ended at " +
                                     std::to_string(got) + ", the host's value is " + std::to_string(want) +
                                     " (allowed: a relative difference of 1e-10)");
    }
    const harness::Measurement m = harness::measure(s, b.options, b.monitor, [&] {
        launch(b.out, s);
        check(cudaGetLastError(), "launch the timed chains");
    });
    const double seconds = m.summary().median / 1e3;
    if (arguments.empty()) std::printf("%s,%.0f,%.6f,%.4g\n", function.c_str(), exps, seconds, exps / seconds);
    else std::printf("%s,%s,%s%.0f,%.6f,%.4g\n", function.c_str(), arguments.c_str(), extra.c_str(), exps, seconds, exps / seconds);
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %zu samples, noise %.2f %%, stop %s\n", what.c_str(), m.samples.size(), m.noise_pct, m.stop_reason.c_str());
}

/// The library set: one row per function, the 16-byte table in global memory for the table exponential.
void run_library(Bench& b) {
    std::vector<mwsep::math::ExpTableEntry> host(mwsep::math::ExpTable::size);
    mwsep::math::ExpTable::fill(host.data());
    const mwsep::math::ExpTableEntry* table = b.memory.upload(host, "upload the exponential table");
    const double exps = 4.0 * iterations * threads * static_cast<double>(b.blocks);
    const auto settled = [](unsigned) { return settled_sum(0.0); };
    std::printf("function,exps,seconds,exps_per_second\n");
    run_row(b, "cuda_exp", "", exps, [&](double* out, cudaStream_t s) { chains<Function::library><<<b.blocks, threads, 0, s>>>(out, iterations, table); },
            settled);
    run_row(b, "exp_nonpositive", "", exps,
            [&](double* out, cudaStream_t s) { chains<Function::nonpositive><<<b.blocks, threads, 0, s>>>(out, iterations, table); }, settled);
    run_row(b, "exp_from_steps", "", exps,
            [&](double* out, cudaStream_t s) { chains<Function::table><<<b.blocks, threads, 0, s>>>(out, iterations, table); }, settled);
}

/// One row of the lean set.
struct LeanRow {
    const char* name;  ///< the function's name in the CSV
    Lean function;     ///< the function
    bool spread;       ///< one table entry per lane (else one per warp)
    /// "function:arguments", as --only names it.
    std::string id() const { return std::string(name) + ":" + (spread ? "spread" : "uniform"); }
};

/// Every row of the lean set, in the order printed (the multiply-adds have no table, so no spread row).
std::vector<LeanRow> lean_rows() {
    return {{"exp_from_steps", Lean::steps, false}, {"exp_from_steps", Lean::steps, true}, {"exp_biased", Lean::biased, false},
            {"exp_biased", Lean::biased, true},     {"exp_table8", Lean::table8, false},   {"exp_table8", Lean::table8, true},
            {"dfma", Lean::dfma, false}};
}

/// Launches the lean chains of @p F on @p s (the argument scaled to @p F's table steps).
template <Lean F>
void launch_lean(int blocks, double* out, const LeanTables& g, bool spread, cudaStream_t s) {
    const double steps = F == Lean::table8 ? mwsep::math::ExpTable8::steps_per_unit : mwsep::math::ExpTable::steps_per_unit;
    lean_chains<F><<<blocks, threads, 0, s>>>(out, iterations, g, steps, spread);
}

/// The lean set: every row, or only @p only ("function:arguments").
void run_lean(Bench& b, const std::string& only) {
    std::vector<mwsep::math::ExpTableEntry> plain(mwsep::math::ExpTable::size), biased(mwsep::math::ExpTable::size);
    std::vector<double> eight(mwsep::math::ExpTable8::size);
    mwsep::math::ExpTable::fill(plain.data());
    mwsep::math::ExpTableBiased::fill(biased.data());
    mwsep::math::ExpTable8::fill(eight.data());
    const LeanTables g{b.memory.upload(plain, "upload the exponential table"), b.memory.upload(biased, "upload the pre-biased table"),
                       b.memory.upload(eight, "upload the eight-byte table")};
    if (!b.once) std::printf("function,arguments,exps,seconds,exps_per_second\n");
    for (const LeanRow& row : lean_rows()) {
        if (!only.empty() && only != row.id()) continue;
        const double per_iteration = row.function == Lean::dfma ? 8.0 : 4.0;  // operations per iteration and thread
        const double exps = per_iteration * iterations * threads * static_cast<double>(b.blocks);
        const bool spread = row.spread;
        std::function<void(double*, cudaStream_t)> launch;
        switch (row.function) {
        case Lean::steps: launch = [&, spread](double* out, cudaStream_t s) { launch_lean<Lean::steps>(b.blocks, out, g, spread, s); }; break;
        case Lean::biased: launch = [&, spread](double* out, cudaStream_t s) { launch_lean<Lean::biased>(b.blocks, out, g, spread, s); }; break;
        case Lean::table8: launch = [&, spread](double* out, cudaStream_t s) { launch_lean<Lean::table8>(b.blocks, out, g, spread, s); }; break;
        case Lean::dfma: launch = [&, spread](double* out, cudaStream_t s) { launch_lean<Lean::dfma>(b.blocks, out, g, spread, s); }; break;
        }
        const auto expected = row.function == Lean::dfma ? std::function<double(unsigned)>([](unsigned t) { return dfma_sum(t, iterations); })
                                                         : std::function<double(unsigned)>([spread](unsigned t) { return settled_sum(lane_offset(spread, t)); });
        run_row(b, row.name, spread ? "spread" : "uniform", exps, launch, expected);
    }
}

// ---- The chains set ----

/// @p C independent chains per thread: of the lean kernels' exponential, x <- exp_table8(x * slope - k steps)
/// - 1 for chain k = 1..C (the argument's multiply-add in table steps, as the kernels fold the scale into
/// their quadratics; every lane on the same table entry), or, with @p Dfma, of fused multiply-adds alone,
/// v <- 0.999999 v + 1e-9. Their sum to @p out.
template <int C, bool Dfma>
__global__ void counted_chains(double* out, int iterations, const double* global_table8, double steps) {
    __shared__ double t8[mwsep::math::ExpTable8::size];
    for (int i = threadIdx.x; i < mwsep::math::ExpTable8::size; i += blockDim.x) t8[i] = global_table8[i];
    __syncthreads();
    double v[C];
#pragma unroll
    for (int k = 0; k < C; ++k) v[k] = Dfma ? 1e-3 * (k + threadIdx.x) : -0.001 * threadIdx.x - 0.5 * k;
    const double slope = -0.5 * steps;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int k = 0; k < C; ++k) {
            if constexpr (Dfma) v[k] = fma(v[k], 0.999999, 1e-9);
            else v[k] = mwsep::math::exp_table8(fma(v[k], slope, -(k + 1.0) * steps), t8) - 1.0;
        }
    }
    double sum = 0;
#pragma unroll
    for (int k = 0; k < C; ++k) sum += v[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/// The chain counts of the chains set, in the order printed.
constexpr int chain_counts[] = {1, 2, 3, 4, 6, 8};

/// One row of the chains set.
struct ChainRow {
    int chains;  ///< independent chains per thread
    bool dfma;   ///< multiply-adds alone (else exp_table8)
    /// The function's name in the CSV.
    const char* function() const { return dfma ? "dfma" : "exp_table8"; }
    /// The row's arguments column.
    std::string arguments() const { return "chains=" + std::to_string(chains); }
    /// "function:arguments", as --only names it.
    std::string id() const { return std::string(function()) + ":" + arguments(); }
};

/// Every row of the chains set: exp_table8 and the multiply-adds for each chain count.
std::vector<ChainRow> chain_rows() {
    std::vector<ChainRow> rows;
    for (int c : chain_counts) {
        rows.push_back({c, false});
        rows.push_back({c, true});
    }
    return rows;
}

/// The row @p row with @p C chains: the kernel's registers and resident warps per SM (the CUDA runtime's
/// occupancy calculator at this launch's block size), then run_row.
template <int C>
void run_chain_row(Bench& b, const ChainRow& row, const double* table8) {
    const auto kernel = row.dfma ? counted_chains<C, true> : counted_chains<C, false>;
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, kernel), "read the chains kernel's registers");
    int blocks_per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, 0), "read the chains kernel's occupancy");
    const std::string extra = std::to_string(C) + "," + std::to_string(attributes.numRegs) + "," +
                              std::to_string(blocks_per_sm * threads / 32) + ",";
    const double steps = mwsep::math::ExpTable8::steps_per_unit;
    const double exps = static_cast<double>(C) * iterations * threads * static_cast<double>(b.blocks);
    const bool dfma = row.dfma;
    run_row(
        b, row.function(), row.arguments(), exps,
        [&, kernel](double* out, cudaStream_t s) { kernel<<<b.blocks, threads, 0, s>>>(out, iterations, table8, steps); },
        dfma ? std::function<double(unsigned)>([](unsigned t) { return dfma_sum(t, iterations, C); })
             : std::function<double(unsigned)>([](unsigned) { return settled_sum(0.0, C); }),
        extra);
}

/// The chains set: every row, or only @p only ("function:arguments").
void run_chains(Bench& b, const std::string& only) {
    std::vector<double> eight(mwsep::math::ExpTable8::size);
    mwsep::math::ExpTable8::fill(eight.data());
    const double* table8 = b.memory.upload(eight, "upload the eight-byte table");
    if (!b.once) std::printf("function,arguments,chains,registers,warps_per_sm,exps,seconds,exps_per_second\n");
    for (const ChainRow& row : chain_rows()) {
        if (!only.empty() && only != row.id()) continue;
        switch (row.chains) {
        case 1: run_chain_row<1>(b, row, table8); break;
        case 2: run_chain_row<2>(b, row, table8); break;
        case 3: run_chain_row<3>(b, row, table8); break;
        case 4: run_chain_row<4>(b, row, table8); break;
        case 6: run_chain_row<6>(b, row, table8); break;
        case 8: run_chain_row<8>(b, row, table8); break;
        default: throw std::logic_error("mwsep exp-throughput: no kernel for " + row.arguments());
        }
    }
}

}  // namespace

int command_exp_throughput(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    const harness::Options o(
        args,
        harness::with_measure_options(
            {opt::value("--set", "library|lean|chains",
                        "library: the CUDA library's exp, the branch-free exp_nonpositive (the CPU code's) and the "
                        "table exponential exp_from_steps (the modern kernel's, its table in shared memory); columns "
                        "function,exps,seconds,exps_per_second. lean: the table exponentials of the lean modern "
                        "variants beside exp_from_steps, the argument in table steps, each with one table entry per "
                        "warp (uniform) and one per lane (spread), and a chain of fused multiply-adds alone (the FP64 "
                        "pipe's ceiling); columns function,arguments,exps,seconds,exps_per_second. chains: 1, 2, 3, 4, 6 and 8 "
                        "independent chains per thread of the lean kernels' exponential (exp_table8) and of "
                        "multiply-adds alone, with each kernel's registers and resident warps per SM; columns "
                        "function,arguments,chains,registers,warps_per_sm,exps,seconds,exps_per_second",
                        "library"),
             opt::value("--only", "FUNCTION:ARGUMENTS", "one row of the lean or the chains set only", "every row"),
             opt::flag("--once", "one checked and one timed launch of each row, for a profiler (with --set lean or chains)")},
            measure_defaults(false)),
        "mwsep exp-throughput",
        {{}, "Double-precision exponentials per second on the GPU, four independent dependent chains per thread "
             "(throughput, not latency; --set chains varies their number), one CSV row per function on standard output. Each row's first launch is "
             "checked, every thread within 1e-10 of the host's long-double value, before any is timed; seconds is "
             "the median of the timed launches (CUDA events).",
         {}});
    const std::string set = o.choice("--set", {"library", "lean", "chains"}, "library");
    const std::string only = o.text("--only");
    const bool once = o.has("--once");
    if (set == "library" && (o.has("--only") || once))
        throw o.error(o.has("--only") ? "--only" : "--once", "applies to --set lean or --set chains only");
    if (o.has("--only")) {  // one of the set's rows
        std::vector<std::string> ids;
        if (set == "lean")
            for (const LeanRow& row : lean_rows()) ids.push_back(row.id());
        else
            for (const ChainRow& row : chain_rows()) ids.push_back(row.id());
        o.choice("--only", ids, "");
    }
    harness::MeasureOptions options = harness::parse_measure_options(o, measure_defaults(false));
    if (once) {
        options.stop.min_samples = options.stop.max_samples = 1;  // one timed launch after the checked one
        options.throttle = harness::Throttle::keep;
    }
    if (harness::print_criterion_if_asked(o, "mwsep exp-throughput", options, "one launch of the chains, CUDA events")) return 0;
    Bench b(options, once);
    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "read the current device");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "read the SM count");
    b.blocks = sms * 8;
    b.out = b.memory.allocate<double>(static_cast<std::size_t>(threads) * b.blocks, "allocate the chains' results");
    b.host.resize(static_cast<std::size_t>(threads) * b.blocks);
    if (set == "lean") run_lean(b, only);
    else if (set == "chains") run_chains(b, only);
    else run_library(b);
    return 0;
}

}  // namespace mwsep::bench
