// `mwsep hardware-micro`: microbenchmarks of the hardware explanations the thesis (sections 4.2, 4.3, 4.4.1)
// gives without measuring them. Four tests, each checking its own result against a value worked out on the host:
//   latency     a dependent pointer chase (one thread) over a random cycle of 128-byte-spaced nodes in a buffer
//               that fits in L1, one that fits in L2 only, and two much larger than L2 (global memory): cycles
//               (clock64) and nanoseconds (globaltimer) per load; the host follows the same cycle and the
//               chase's final node must equal its own.
//   constant    one warp's dependent loads of __constant__ doubles at 1, 2, 4, ..., 32 distinct addresses per
//               warp load (lane l reads entry l mod k), against the same pattern from global memory (L1):
//               cycles per warp load; every lane's final index and sum are checked.
//   coalescing  a whole-GPU read of every stride-th 4- or 8-byte element of a 1 GiB buffer (stride 1 also
//               with the start moved by one element): kernel time and useful bytes per second; the sum of
//               what was read is compared with the host's before the read is timed.
//   shared      16 warps of one block reading or writing 8-byte (and, for reference, 4-byte) elements of shared
//               memory with lane l at element l x stride: SM cycles per warp access at full issue; the reads'
//               sums and the final contents after the writes are checked.
//   spaces      (asked for by --tests) the hit latency of each memory space of Ryoo et al.'s Table 1 and Münch's
//               Table 2.1, by the same one-thread dependent chase as `latency`, each over a small warmed cycle that
//               its cache holds: a dependent integer add in registers (the unit the documents compare with), shared
//               memory, the constant cache, the texture path (tex1Dfetch of a texture object), the read-only data
//               path (ld.global.nc) and, from `latency`, L1, L2 and global memory: cycles and ns per access; the
//               chase's final index (the register chain's final sum) must equal the host's.
// Output: CSV rows test,case,element_bytes,param,value,unit,ns_per_access,kernel_ms. `param`: the buffer's
// bytes (latency), the distinct addresses (constant) or the stride in elements (coalescing, shared); `value`:
// cycles per load (latency, constant), per warp access (shared), or useful GB/s (coalescing); ns_per_access
// (latency) and kernel_ms (coalescing) are empty elsewhere. The latency, constant and shared tests time
// themselves inside one launch (clock64, globaltimer) and are checked from that launch's results; the strided
// reads are timed by the measurement engine (harness::measure: CUDA events, the stop rule, the clock
// monitor), always cold (the L2 flushed before each sample), kernel_ms being the median. A failed check
// names what differs and ends the command with status 1.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
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

namespace mwsep::bench {
namespace {

using harness::check;

/// Ends the command with a failed check that names @p what differs.
[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("mwsep hardware-micro: check failed: " + what); }

/// The command's stream, its measurement rule and clock monitor, and the device's L2 size.
struct Micro {
    /// The device's stream and monitor, for the measurement @p measure.
    explicit Micro(const harness::MeasureOptions& measure) : options(measure) {}
    harness::MeasureOptions options;                               ///< the rule of the strided reads
    harness::Stream stream;                                        ///< every launch's stream
    harness::ClockMonitor monitor{harness::current_pci_bus_id()};  ///< the SM clock during each sample
    std::size_t l2_bytes = 0;                                      ///< the device's L2 size
};

/// The GPU's global timer [ns].
__device__ __forceinline__ std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// ---- latency: the pointer chase ---------------------------------------------------------------------------
// Node i lives at word i * node_words; its word holds the word index of the next node. `cached_l1` chooses the
// default load (cached in L1) or ld.global.cg (L2 only, so that a buffer larger than L1 is not helped by it).
/// The word at @p p, through L1 (@p cached_l1) or L2 only.
template <bool cached_l1>
__device__ __forceinline__ std::uint32_t load_next(const std::uint32_t* p) {
    std::uint32_t v;
    if constexpr (cached_l1) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
    else asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

/// One thread follows the cycle from @p start: @p warm_steps untimed, then @p steps timed; @p out gets the final
/// word index, the cycles and the nanoseconds of the timed steps.
template <bool cached_l1>
__global__ void chase(const std::uint32_t* buffer, std::uint32_t start, long long warm_steps, long long steps,
                      unsigned long long* out) {
    std::uint32_t j = start;
    for (long long s = 0; s < warm_steps; ++s) j = load_next<cached_l1>(buffer + j);
    const long long c0 = clock64();
    const std::uint64_t t0 = global_ns();
    for (long long s = 0; s < steps; ++s) j = load_next<cached_l1>(buffer + j);
    const std::uint64_t t1 = global_ns();
    const long long c1 = clock64();
    out[0] = j;
    out[1] = static_cast<unsigned long long>(c1 - c0);
    out[2] = t1 - t0;
}

/// The latency row @p name: a chase of @p steps loads over a cycle through @p bytes (@p cached_l1: through L1),
/// checked against the host's walk of the same cycle.
void latency(Micro& m, const char* name, std::size_t bytes, bool cached_l1, long long steps) {
    constexpr std::size_t node_bytes = 128, node_words = node_bytes / sizeof(std::uint32_t);
    const std::size_t nodes = bytes / node_bytes;
    // A random single cycle through every node (Sattolo's shuffle), fixed seed.
    std::vector<std::uint32_t> order(nodes);
    for (std::size_t i = 0; i < nodes; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::mt19937_64 rng(12345);
    for (std::size_t i = nodes - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(rng)]);
    std::vector<std::uint32_t> host(nodes * node_words, 0);
    for (std::size_t i = 0; i < nodes; ++i)
        host[order[i] * node_words] = static_cast<std::uint32_t>(order[(i + 1) % nodes] * node_words);
    const long long warm = cached_l1 || bytes <= m.l2_bytes / 2 ? static_cast<long long>(nodes) * 2 : 0;
    // The host follows the same cycle: where the chase must end.
    std::uint32_t expect = static_cast<std::uint32_t>(order[0] * node_words);
    for (long long s = 0; s < warm + steps; ++s) expect = host[expect];

    const cudaStream_t stream = m.stream.get();
    harness::DeviceMemory memory;
    const std::uint32_t* d = memory.upload(host, "upload the chase's nodes");
    auto* out = memory.allocate<unsigned long long>(3, "allocate the chase's result");
    // Global memory: the buffer pushed out of L2 first (the engine's flush: a write of twice the L2).
    if (!warm) harness::L2Flush().flush(stream);
    const std::uint32_t start = static_cast<std::uint32_t>(order[0] * node_words);
    if (cached_l1) chase<true><<<1, 1, 0, stream>>>(d, start, warm, steps, out);
    else chase<false><<<1, 1, 0, stream>>>(d, start, warm, steps, out);
    check(cudaGetLastError(), "launch the pointer chase");
    unsigned long long r[3];
    check(cudaMemcpyAsync(r, out, sizeof r, cudaMemcpyDeviceToHost, stream), "download the chase's result");
    check(cudaStreamSynchronize(stream), "run the pointer chase");
    if (r[0] != expect)
        fail(std::string("latency ") + name + ": the chase ended at word " + std::to_string(r[0]) + ", the host at " +
             std::to_string(expect));
    std::printf("latency,%s,4,%zu,%.2f,cycles,%.2f,\n", name, bytes, double(r[1]) / steps, double(r[2]) / steps);
}

// ---- spaces: the hit latency of each memory space ------------------------------------------------------------
/// Entries of the chased cycles of the spaces test: 256 words (1 KiB), held by the constant cache, by L1 and by
/// shared memory alike.
constexpr int space_entries = 256;
/// The constant cycle (entry i holds the next entry's index).
__constant__ std::uint32_t constant_cycle[space_entries];

/// Which space one launch of space_chase follows.
enum class Space { registers, shared, constant, texture, readonly };

/// One thread follows the cycle @p cycle (in global memory; copied to shared memory for Space::shared; its copy
/// in constant_cycle for Space::constant; through @p texture for Space::texture) from entry 0: 2 x entries
/// untimed, then @p steps timed; Space::registers adds @p step to a register @p steps times instead. @p out gets
/// the final index (or sum), the cycles and the nanoseconds of the timed steps.
template <Space S>
__global__ void space_chase(const std::uint32_t* cycle, cudaTextureObject_t texture, std::uint32_t step, long long steps,
                            unsigned long long* out) {
    __shared__ std::uint32_t shared_cycle[space_entries];
    if constexpr (S == Space::shared)
        for (int i = 0; i < space_entries; ++i) shared_cycle[i] = cycle[i];
    const auto next = [&](std::uint32_t j) -> std::uint32_t {
        std::uint32_t v;
        if constexpr (S == Space::registers) {
            asm volatile("add.u32 %0, %1, %2;" : "=r"(v) : "r"(j), "r"(step));
        } else if constexpr (S == Space::shared) {
            asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v)
                         : "r"(static_cast<unsigned>(__cvta_generic_to_shared(shared_cycle + j))));
        } else if constexpr (S == Space::constant) {
            v = constant_cycle[j];
        } else if constexpr (S == Space::texture) {
            v = tex1Dfetch<std::uint32_t>(texture, static_cast<int>(j));
        } else {
            asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(cycle + j));
        }
        return v;
    };
    std::uint32_t j = 0;
    if constexpr (S != Space::registers)
        for (int s = 0; s < 2 * space_entries; ++s) j = next(j);
    const long long c0 = clock64();
    const std::uint64_t t0 = global_ns();
    for (long long s = 0; s < steps; ++s) j = next(j);
    const std::uint64_t t1 = global_ns();
    const long long c1 = clock64();
    out[0] = j;
    out[1] = static_cast<unsigned long long>(c1 - c0);
    out[2] = t1 - t0;
}

/// The spaces rows: each space's chase over one random cycle of space_entries words, checked against the host's.
void space_latencies(Micro& m) {
    std::vector<std::uint32_t> order(space_entries), cycle(space_entries);
    for (int i = 0; i < space_entries; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::mt19937_64 rng(2008);
    for (int i = space_entries - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<int>(0, i - 1)(rng)]);
    for (int i = 0; i < space_entries; ++i) cycle[order[i]] = order[(i + 1) % space_entries];
    check(cudaMemcpyToSymbol(constant_cycle, cycle.data(), sizeof(std::uint32_t) * space_entries), "upload the constant cycle");
    const cudaStream_t stream = m.stream.get();
    harness::DeviceMemory memory;
    const std::uint32_t* d = memory.upload(cycle, "upload the chased cycle");
    auto* out = memory.allocate<unsigned long long>(3, "allocate the chase's result");
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = const_cast<std::uint32_t*>(d);
    resource.res.linear.desc = cudaCreateChannelDesc<std::uint32_t>();
    resource.res.linear.sizeInBytes = sizeof(std::uint32_t) * space_entries;
    cudaTextureDesc description{};
    description.readMode = cudaReadModeElementType;
    cudaTextureObject_t texture = 0;
    check(cudaCreateTextureObject(&texture, &resource, &description, nullptr), "create the texture object");
    const long long steps = 1 << 16;
    const std::uint32_t step = 3;
    struct Case { const char* name; void (*launch)(const std::uint32_t*, cudaTextureObject_t, std::uint32_t, long long,
                                                  unsigned long long*, cudaStream_t); };
    const Case cases[] = {
        {"register", [](auto c, auto t, auto s, auto n, auto o, auto q) { space_chase<Space::registers><<<1, 1, 0, q>>>(c, t, s, n, o); }},
        {"shared", [](auto c, auto t, auto s, auto n, auto o, auto q) { space_chase<Space::shared><<<1, 1, 0, q>>>(c, t, s, n, o); }},
        {"constant", [](auto c, auto t, auto s, auto n, auto o, auto q) { space_chase<Space::constant><<<1, 1, 0, q>>>(c, t, s, n, o); }},
        {"texture", [](auto c, auto t, auto s, auto n, auto o, auto q) { space_chase<Space::texture><<<1, 1, 0, q>>>(c, t, s, n, o); }},
        {"readonly", [](auto c, auto t, auto s, auto n, auto o, auto q) { space_chase<Space::readonly><<<1, 1, 0, q>>>(c, t, s, n, o); }},
    };
    for (const Case& c : cases) {
        const bool chain = std::string(c.name) == "register";
        c.launch(d, texture, step, steps, out, stream);
        check(cudaGetLastError(), (std::string("launch the ") + c.name + " chase").c_str());
        unsigned long long r[3];
        check(cudaMemcpyAsync(r, out, sizeof r, cudaMemcpyDeviceToHost, stream), "download the chase's result");
        check(cudaStreamSynchronize(stream), (std::string("run the ") + c.name + " chase").c_str());
        // Where the chase must end: the host's walk of the same cycle (2 x entries warm steps, then the timed ones),
        // or the register chain's sum (unsigned arithmetic wraps alike on both sides).
        std::uint32_t expect = 0;
        if (chain) expect = static_cast<std::uint32_t>(static_cast<unsigned long long>(step) * static_cast<unsigned long long>(steps));
        else
            for (long long s = 0; s < 2 * space_entries + steps; ++s) expect = cycle[expect];
        if (r[0] != expect)
            fail(std::string("spaces ") + c.name + ": the chase ended at " + std::to_string(r[0]) + ", the host at " + std::to_string(expect));
        std::printf("latency,%s,4,%zu,%.2f,cycles,%.2f,\n", c.name, chain ? std::size_t(0) : sizeof(std::uint32_t) * space_entries,
                    double(r[1]) / steps, double(r[2]) / steps);
    }
    check(cudaDestroyTextureObject(texture), "destroy the texture object");
}

// ---- constant: divergent addresses in one warp --------------------------------------------------------------
/// Entries of the constant and the global table.
constexpr int table_entries = 64;
/// Entry i holds i.
__constant__ double constant_table[table_entries];

// Each lane starts at entry (lane mod distinct) and follows table[i] (which holds i + 0.0: the lane stays on its
// entry, but the compiler cannot know it), so every load depends on the last and a warp load touches exactly
// `distinct` addresses. from_constant: the __constant__ table, else the same values in global memory.
/// One warp's dependent loads (see above); per lane its sum and final entry, and lane 0's cycles.
template <bool from_constant>
__global__ void divergent(const double* global_table, int distinct, int steps, double* sums, int* final_index,
                          long long* cycles) {
    const int lane = threadIdx.x;
    int i = lane % distinct;
    double sum = 0;
    // One untimed pass brings the entries into the caches.
    for (int s = 0; s < 8; ++s) i = static_cast<int>(from_constant ? constant_table[i] : global_table[i]);
    __syncwarp();
    const long long c0 = clock64();
    for (int s = 0; s < steps; ++s) {
        const double v = from_constant ? constant_table[i] : global_table[i];
        sum += v;
        i = static_cast<int>(v);
    }
    const long long c1 = clock64();
    sums[lane] = sum;
    final_index[lane] = i;
    if (lane == 0) *cycles = c1 - c0;
}

/// The constant rows: 1 to 32 distinct addresses per warp load, from constant and from global memory.
void constant_divergence(Micro& m) {
    const cudaStream_t stream = m.stream.get();
    std::vector<double> table(table_entries);
    for (int i = 0; i < table_entries; ++i) table[i] = i;
    check(cudaMemcpyToSymbol(constant_table, table.data(), sizeof(double) * table_entries), "upload the constant table");
    harness::DeviceMemory memory;
    const double* global_table = memory.upload(table, "upload the global table");
    double* sums = memory.allocate<double>(32, "allocate the lanes' sums");
    int* final_index = memory.allocate<int>(32, "allocate the lanes' final entries");
    long long* cycles = memory.allocate<long long>(1, "allocate the cycle count");
    const int steps = 1 << 14;
    for (int from_constant = 1; from_constant >= 0; --from_constant)
        for (int distinct = 1; distinct <= 32; distinct *= 2) {
            if (from_constant) divergent<true><<<1, 32, 0, stream>>>(global_table, distinct, steps, sums, final_index, cycles);
            else divergent<false><<<1, 32, 0, stream>>>(global_table, distinct, steps, sums, final_index, cycles);
            check(cudaGetLastError(), "launch the divergent loads");
            double s[32];
            int f[32];
            long long c = 0;
            check(cudaMemcpyAsync(s, sums, sizeof s, cudaMemcpyDeviceToHost, stream), "download the lanes' sums");
            check(cudaMemcpyAsync(f, final_index, sizeof f, cudaMemcpyDeviceToHost, stream), "download the lanes' final entries");
            check(cudaMemcpyAsync(&c, cycles, sizeof c, cudaMemcpyDeviceToHost, stream), "download the cycle count");
            check(cudaStreamSynchronize(stream), "run the divergent loads");
            for (int lane = 0; lane < 32; ++lane)
                if (f[lane] != lane % distinct || s[lane] != double(steps) * (lane % distinct))
                    fail("constant: lane " + std::to_string(lane) + " with " + std::to_string(distinct) +
                         " distinct addresses ended at entry " + std::to_string(f[lane]) + " with sum " + std::to_string(s[lane]));
            std::printf("constant,%s,8,%d,%.2f,cycles,,\n", from_constant ? "constant" : "global", distinct, double(c) / steps);
        }
}

// ---- coalescing: strided reads over the whole GPU -----------------------------------------------------------
/// Every thread sums elements i * @p stride + @p offset of @p data for its indices i < @p count into @p partial.
template <typename T>
__global__ void strided_read(const T* data, std::size_t count, int stride, int offset, double* partial) {
    const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
    double sum = 0;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += threads)
        sum += static_cast<double>(data[i * stride + offset]);
    partial[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

// Element j holds j mod 1024: every sum below is of small integers and exact in double.
/// Element j of @p data (of @p n) set to j mod 1024.
template <typename T>
__global__ void fill(T* data, std::size_t n) {
    for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += std::size_t(gridDim.x) * blockDim.x)
        data[j] = static_cast<T>(j % 1024);
}

/// The coalescing rows of elements of type @p T: each stride's read checked, then timed by the engine.
template <typename T>
void coalescing(Micro& m) {
    constexpr std::size_t buffer_bytes = std::size_t(1) << 30;
    const std::size_t n = buffer_bytes / sizeof(T);
    const cudaStream_t stream = m.stream.get();
    int device = 0, sms = 0;
    check(cudaGetDevice(&device), "read the current device");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "read the SM count");
    const int threads = 256, blocks = sms * 8;
    harness::DeviceMemory memory;
    T* data = memory.allocate<T>(n, "allocate the strided buffer");
    double* partial = memory.allocate<double>(static_cast<std::size_t>(threads) * blocks, "allocate the partial sums");
    fill<<<blocks, threads, 0, stream>>>(data, n);
    check(cudaGetLastError(), "launch the fill");
    std::vector<double> host(std::size_t(threads) * blocks);
    struct Case { int stride, offset; };
    std::vector<Case> cases{{1, 0}, {1, 1}};
    for (int s = 2; s <= 32; s *= 2) cases.push_back({s, 0});
    for (const Case& c : cases) {
        const std::size_t count = (n - static_cast<std::size_t>(c.offset)) / static_cast<std::size_t>(c.stride);
        const auto read = [&] {
            strided_read<T><<<blocks, threads, 0, stream>>>(data, count, c.stride, c.offset, partial);
            check(cudaGetLastError(), "launch the strided read");
        };
        // Checked before it is timed: the sum of what was read against the host's.
        read();
        check(cudaMemcpyAsync(host.data(), partial, sizeof(double) * host.size(), cudaMemcpyDeviceToHost, stream), "download the partial sums");
        check(cudaStreamSynchronize(stream), "run the checked strided read");
        double got = 0, expect = 0;
        for (double v : host) got += v;
        for (std::size_t i = 0; i < count; ++i) expect += double((i * c.stride + c.offset) % 1024);
        if (got != expect)
            fail("coalescing: stride " + std::to_string(c.stride) + " offset " + std::to_string(c.offset) + " of " +
                 std::to_string(sizeof(T)) + "-byte elements read a sum of " + std::to_string(got) + ", expected " +
                 std::to_string(expect));
        const harness::Measurement t = harness::measure(stream, m.options, m.monitor, read);
        const double ms = t.summary().median;
        std::printf("coalescing,%s,%zu,%d,%.2f,GB/s,,%.4f\n", c.offset ? "misaligned" : "aligned", sizeof(T), c.stride,
                    double(count) * sizeof(T) / (ms * 1e-3) / 1e9, ms);
        std::fflush(stdout);
        std::fprintf(stderr, "coalescing %zu-byte stride %d offset %d: %zu samples, noise %.2f %%, stop %s\n", sizeof(T), c.stride,
                     c.offset, t.samples.size(), t.noise_pct, t.stop_reason.c_str());
    }
}

// ---- shared: strided 8-byte (and 4-byte) accesses -----------------------------------------------------------
/// Warps of the shared-memory block.
constexpr int shared_warps = 16;
/// Elements per warp: 32 lanes x the largest stride.
constexpr int shared_region = 32 * 32;

/// A volatile load of @p p from shared memory (not merged or hoisted).
template <typename T>
__device__ __forceinline__ T shared_load(const T* p) {
    T v;
    if constexpr (sizeof(T) == 8) asm volatile("ld.volatile.shared.f64 %0, [%1];" : "=d"(v) : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
    else asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
    return v;
}

/// A volatile store of @p v to @p p in shared memory.
template <typename T>
__device__ __forceinline__ void shared_store(T* p, T v) {
    if constexpr (sizeof(T) == 8) asm volatile("st.volatile.shared.f64 [%0], %1;" :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))), "d"(v) : "memory");
    else asm volatile("st.volatile.shared.f32 [%0], %1;" :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))), "f"(v) : "memory");
}

// Lane l of warp w accesses element w * shared_region + l * stride, `steps` x 8 times. Reads sum what they read
// (element e holds e mod 1024); writes store lane + step, so the last step's value must remain.
/// The shared-memory accesses (see above): per thread its sum, the final contents, and thread 0's cycles.
template <typename T, bool write>
__global__ void shared_access(int stride, int steps, double* sums, T* contents, long long* cycles) {
    extern __shared__ unsigned char raw[];
    T* s = reinterpret_cast<T*>(raw);
    for (int e = threadIdx.x; e < shared_warps * shared_region; e += blockDim.x) s[e] = static_cast<T>(e % 1024);
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    T* p = s + warp * shared_region + lane * stride;
    double sum = 0;
    const long long c0 = clock64();
    for (int k = 0; k < steps; ++k) {
        if constexpr (write) {
#pragma unroll
            for (int u = 0; u < 8; ++u) shared_store(p, static_cast<T>(lane + 8 * k + u));
        } else {
            T a = 0;
#pragma unroll
            for (int u = 0; u < 8; ++u) a += shared_load(p);
            sum += static_cast<double>(a);
        }
    }
    __syncthreads();
    const long long c1 = clock64();
    sums[threadIdx.x] = sum;
    if (threadIdx.x == 0) *cycles = c1 - c0;
    for (int e = threadIdx.x; e < shared_warps * shared_region; e += blockDim.x) contents[e] = s[e];
}

/// One shared row: reads or writes of @p T at @p stride, checked, with its cycles per warp access.
template <typename T, bool write>
void shared_case(cudaStream_t stream, int stride, double* sums, T* contents, long long* cycles) {
    const int steps = 1 << 12;
    const std::size_t bytes = sizeof(T) * shared_warps * shared_region;
    check(cudaFuncSetAttribute(shared_access<T, write>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "allow the shared-memory size");
    shared_access<T, write><<<1, 32 * shared_warps, bytes, stream>>>(stride, steps, sums, contents, cycles);
    check(cudaGetLastError(), "launch the shared-memory accesses");
    std::vector<double> s(32 * shared_warps);
    std::vector<T> c(shared_warps * shared_region);
    long long cy = 0;
    check(cudaMemcpyAsync(s.data(), sums, sizeof(double) * s.size(), cudaMemcpyDeviceToHost, stream), "download the sums");
    check(cudaMemcpyAsync(c.data(), contents, sizeof(T) * c.size(), cudaMemcpyDeviceToHost, stream), "download the contents");
    check(cudaMemcpyAsync(&cy, cycles, sizeof cy, cudaMemcpyDeviceToHost, stream), "download the cycle count");
    check(cudaStreamSynchronize(stream), "run the shared-memory accesses");
    for (int t = 0; t < 32 * shared_warps; ++t) {
        const int warp = t / 32, lane = t % 32, e = warp * shared_region + lane * stride;
        if (write) {
            if (c[e] != static_cast<T>(lane + 8 * (steps - 1) + 7))
                fail("shared: write stride " + std::to_string(stride) + ": element " + std::to_string(e) + " holds " +
                     std::to_string(double(c[e])));
        } else if (s[t] != 8.0 * steps * (e % 1024)) {
            fail("shared: read stride " + std::to_string(stride) + ": thread " + std::to_string(t) + " summed " +
                 std::to_string(s[t]));
        }
    }
    std::printf("shared,%s,%zu,%d,%.3f,cycles,,\n", write ? "write" : "read", sizeof(T), stride,
                double(cy) / (double(steps) * 8 * shared_warps));
}

/// The shared rows of elements of type @p T, strides 1 to 32.
template <typename T>
void shared_banks(Micro& m) {
    harness::DeviceMemory memory;
    double* sums = memory.allocate<double>(32 * shared_warps, "allocate the sums");
    T* contents = memory.allocate<T>(shared_warps * shared_region, "allocate the contents");
    long long* cycles = memory.allocate<long long>(1, "allocate the cycle count");
    for (int stride = 1; stride <= 32; stride *= 2) {
        shared_case<T, false>(m.stream.get(), stride, sums, contents, cycles);
        shared_case<T, true>(m.stream.get(), stride, sums, contents, cycles);
    }
}

}  // namespace

int command_hardware_micro(const std::vector<std::string>& args) {
    namespace opt = harness::option;
    const harness::Options o(
        args,
        harness::with_measure_options(
            {opt::value("--tests", "LIST",
                        "the tests, comma-separated: latency, constant, coalescing, shared, spaces; spaces adds, as "
                        "latency rows, the hit latency of a dependent register add and of loads from shared memory, "
                        "the constant cache, the texture path and the read-only data path, each over a small warmed "
                        "cycle",
                        "latency,constant,coalescing,shared")},
            measure_defaults(true)),
        "mwsep hardware-micro",
        {{}, "Microbenchmarks of the hardware explanations the thesis gives without measuring them, one CSV row per "
             "test and case on standard output (test,case,element_bytes,param,value,unit,ns_per_access,kernel_ms): "
             "the latency of a dependent load from L1, L2 and global memory (a pointer chase, cycles and ns per "
             "load); one warp's loads of __constant__ doubles at 1 to 32 distinct addresses against the same loads "
             "from global memory (cycles per warp load); whole-GPU reads of every stride-th 4- or 8-byte element of "
             "a 1 GiB buffer, aligned and misaligned (useful GB/s); 8- and 4-byte shared-memory accesses with lane l "
             "at element l x stride (SM cycles per warp access). Every test checks its result against the host's "
             "(the chase's last node, the lanes' sums and entries, the reads' sums before they are timed, the shared "
             "contents). The latency, constant and shared tests time themselves in one launch (clock64, "
             "globaltimer); the strided reads go through the measurement options and are always cold (the L2 "
             "flushed before each sample). Needs about 1.1 GiB of device memory.",
         {}});
    const std::vector<std::string> tests =
        o.choices("--tests", {"latency", "constant", "coalescing", "shared", "spaces"}, "latency,constant,coalescing,shared");
    const harness::MeasureOptions options = harness::parse_measure_options(o, measure_defaults(true));
    if (harness::print_criterion_if_asked(o, "mwsep hardware-micro", options,
                                          "one strided read of the coalescing test, CUDA events, L2 flushed before each; the other "
                                          "tests time themselves inside one launch (clock64, globaltimer)"))
        return 0;
    const auto wants = [&](const char* t) { return std::find(tests.begin(), tests.end(), t) != tests.end(); };
    Micro m(options);
    int device = 0, l2 = 0;
    check(cudaGetDevice(&device), "read the current device");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "read the L2 size");
    m.l2_bytes = static_cast<std::size_t>(l2);
    std::printf("test,case,element_bytes,param,value,unit,ns_per_access,kernel_ms\n");
    if (wants("spaces")) space_latencies(m);
    if (wants("latency")) {
        latency(m, "l1", std::size_t(16) << 10, true, 1 << 16);
        latency(m, "l2", std::min<std::size_t>(std::size_t(8) << 20, m.l2_bytes / 4), false, 1 << 16);
        latency(m, "global", std::max<std::size_t>(std::size_t(256) << 20, 4 * m.l2_bytes), false, 1 << 15);
        latency(m, "global", std::max<std::size_t>(std::size_t(1) << 30, 16 * m.l2_bytes), false, 1 << 15);
    }
    if (wants("constant")) constant_divergence(m);
    if (wants("coalescing")) {
        coalescing<float>(m);
        coalescing<double>(m);
    }
    if (wants("shared")) {
        shared_banks<double>(m);
        shared_banks<float>(m);
    }
    return 0;
}

}  // namespace mwsep::bench
