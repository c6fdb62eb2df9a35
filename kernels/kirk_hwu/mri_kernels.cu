/// @file mri_kernels.cu
/// @brief The MRI ladder: the μ kernel (step F1a), the scatter kernel with atomics (F0 made correct), the
/// one gather kernel template every later step instantiates (F3–F8 and the memory-space and FP64 siblings),
/// the host loop over staged chunks, and the registration of every MRI variant.
#include <algorithm>
#include <string>

#include "gpu_variants.hpp"
#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "mri_policies.cuh"
#include "registration.hpp"

namespace kirk_hwu::gpu {


// [weights-kernel-begin]
/// Step F1a (the μ kernel): one thread per sample forms its weight, |φ|² for Q or conj(φ)·d for F^H d,
/// and writes it to the separate arrays and into the sample's record.
template <MriOutput Out, class Real>
__global__ void sample_weights(const float* phi_r, const float* phi_i, const float* d_r, const float* d_i,
                               const float* kx, const float* ky, const float* kz, int samples, Real* wr, Real* wi,
                               Real* records) {
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= samples) return;
    const Real pr = phi_r[m], pi = phi_i[m];
    const Real r = Out == MriOutput::q ? phi_magnitude(pr, pi) : mu_real<Real>(pr, pi, d_r[m], d_i[m]);
    const Real i = Out == MriOutput::q ? Real(0) : mu_imag<Real>(pr, pi, d_r[m], d_i[m]);
    wr[m] = r;
    wi[m] = i;
    constexpr int fields = record_fields(Out);
    Real* rec = records + static_cast<std::size_t>(m) * fields;
    rec[0] = kx[m], rec[1] = ky[m], rec[2] = kz[m], rec[3] = r;
    if (fields > 4) rec[4] = i;
}
// [weights-kernel-end]

// [scatter-kernel-begin]
/// Step F0 as the documents first write it, made correct: one thread per sample adds its term to every
/// voxel's output. Every thread writes every output, so the additions must be atomic.
template <MriOutput Out>
__global__ void mri_scatter(const float* x, const float* y, const float* z, int voxels, const float* kx,
                            const float* ky, const float* kz, const float* wr, const float* wi, int samples,
                            float* out_r, float* out_i) {
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= samples) return;
    for (int n = 0; n < voxels; ++n) {
        const float e = mri_phase(kx[m], ky[m], kz[m], x[n], y[n], z[n]);
        float s, c;
        sincosf(e, &s, &c);
        float r = 0, i = 0;
        mri_accumulate<Out>(r, i, wr[m], wi[m], c, s);
        atomicAdd(out_r + n, r);
        atomicAdd(out_i + n, i);
    }
}
// [scatter-kernel-end]

// [gather-kernel-begin]
/// Steps F3–F8: one thread per voxel (the gather after loop fission and interchange) adds the terms of
/// samples [0, count) of this launch, in increasing order, to its voxel's output.
template <MriOutput Out, class Memory, class Accumulator, class Trig, class Real, int Unroll>
__global__ void mri_gather(const __grid_constant__ typename Memory::template Source<Real> source, int count,
                           const Real* x, const Real* y, const Real* z, int voxels, Real* out_r, Real* out_i) {
    constexpr int fields = record_fields(Out);
    extern __shared__ unsigned char shared_bytes[];
    Real* tile = reinterpret_cast<Real*>(shared_bytes);
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    const bool live = n < voxels;  // no early return: shared-memory tiles need every thread
    Real px = 0, py = 0, pz = 0, sum_r = 0, sum_i = 0;
    if (Accumulator::registers && live) {
        px = x[n], py = y[n], pz = z[n];
        sum_r = out_r[n], sum_i = out_i[n];  // the sums of earlier chunks
    }
    for (int begin = 0; begin < count; begin += Memory::tile) {
        const int end = count - begin < Memory::tile ? count : begin + Memory::tile;
        Memory::stage_tile(source, tile, begin, end - begin, blockDim.x);
        if (!live) continue;
#pragma unroll Unroll
        for (int j = begin; j < end; ++j) {
            const Sample<Real> s = Memory::template get<Real, fields>(source, tile, j, begin);
            if constexpr (Accumulator::registers) {
                Real sin_e, cos_e;
                Trig::sincos_of(mri_phase(s.kx, s.ky, s.kz, px, py, pz), &sin_e, &cos_e);
                mri_accumulate<Out>(sum_r, sum_i, s.wr, s.wi, cos_e, sin_e);
            } else {
                Real sin_e, cos_e;
                Trig::sincos_of(mri_phase(s.kx, s.ky, s.kz, x[n], y[n], z[n]), &sin_e, &cos_e);
                mri_accumulate<Out>(out_r[n], out_i[n], s.wr, s.wi, cos_e, sin_e);
            }
        }
    }
    if (Accumulator::registers && live) out_r[n] = sum_r, out_i[n] = sum_i;
}
// [gather-kernel-end]

/// The device's arrays of precision @p Real.
template <class Real>
static MriDevice::Arrays<Real>& arrays_of(MriDevice& d) {
    if constexpr (sizeof(Real) == 4) return d.f32;
    else return d.f64;
}

// [host-loop-begin]
/// The host side of a gather variant: zero the output, then per chunk stage the samples where the
/// memory policy keeps them and launch (the constant-memory and parameter policies need one launch per
/// chunk; the others take all samples in one).
template <MriOutput Out, class Memory, class Accumulator, class Trig, class Real, int Unroll>
void compute_gather(MriDevice& d, const LaunchSettings& ls, cudaStream_t stream) {
    auto& a = arrays_of<Real>(d);
    const int fields = record_fields(Out);
    harness::check(cudaMemsetAsync(a.out_r, 0, sizeof(Real) * d.voxels(), stream), "zero the real output");
    harness::check(cudaMemsetAsync(a.out_i, 0, sizeof(Real) * d.voxels(), stream), "zero the imaginary output");
    const int threads = ls.threads_per_block > 0 ? ls.threads_per_block : 256;
    const int blocks = (d.voxels() + threads - 1) / threads;
    const int chunk = Memory::chunk(ls.chunk, fields, sizeof(Real), d.samples());
    const std::size_t shared = Memory::tile == INT_MAX ? 0 : sizeof(Real) * fields * Memory::tile;
    for (int first = 0; first < d.samples(); first += chunk) {
        const int count = std::min(chunk, d.samples() - first);
        const auto source = Memory::template stage<Real>(a, d.host_records, fields, first, count, stream);
        mri_gather<Out, Memory, Accumulator, Trig, Real, Unroll>
            <<<blocks, threads, shared, stream>>>(source, count, a.x, a.y, a.z, d.voxels(), a.out_r, a.out_i);
        harness::check(cudaGetLastError(), "launch the MRI gather kernel");
    }
}
// [host-loop-end]

/// The host side of the scatter variant: zero the output, launch one thread per sample.
template <MriOutput Out>
void compute_scatter(MriDevice& d, const LaunchSettings& ls, cudaStream_t stream) {
    auto& a = d.f32;
    harness::check(cudaMemsetAsync(a.out_r, 0, sizeof(float) * d.voxels(), stream), "zero the real output");
    harness::check(cudaMemsetAsync(a.out_i, 0, sizeof(float) * d.voxels(), stream), "zero the imaginary output");
    const int threads = ls.threads_per_block > 0 ? ls.threads_per_block : 256;
    mri_scatter<Out><<<(d.samples() + threads - 1) / threads, threads, 0, stream>>>(
        a.x, a.y, a.z, d.voxels(), a.kx, a.ky, a.kz, a.wr, a.wi, d.samples(), a.out_r, a.out_i);
    harness::check(cudaGetLastError(), "launch the MRI scatter kernel");
}

// ---- the device copy ---------------------------------------------------------------------------------

/// A device array of @p count values, recorded in @p owned for freeing.
template <class T>
static T* device_array(std::vector<void*>& owned, std::size_t count) {
    void* p = nullptr;
    harness::check(cudaMalloc(&p, sizeof(T) * std::max<std::size_t>(count, 1)), "allocate device memory for the MRI input");
    owned.push_back(p);
    return static_cast<T*>(p);
}

/// Copies the float values @p src to the device array @p dst in precision @p Real.
template <class Real>
static void upload_widened(Real* dst, const std::vector<float>& src) {
    std::vector<Real> wide(src.begin(), src.end());
    harness::check(cudaMemcpy(dst, wide.data(), sizeof(Real) * wide.size(), cudaMemcpyHostToDevice), "copy MRI input to the device");
}

/// Allocates and fills the arrays of one precision, the weights and records by the μ kernel; returns the μ
/// kernel's time [ms].
template <MriOutput Out, class Real>
static float fill_precision(MriDevice::Arrays<Real>& a, const MriInput& in, std::vector<void*>& owned) {
    const std::size_t n = in.voxels(), m = in.samples();
    a.x = device_array<Real>(owned, n), a.y = device_array<Real>(owned, n), a.z = device_array<Real>(owned, n);
    a.out_r = device_array<Real>(owned, n), a.out_i = device_array<Real>(owned, n);
    a.kx = device_array<Real>(owned, m), a.ky = device_array<Real>(owned, m), a.kz = device_array<Real>(owned, m);
    a.wr = device_array<Real>(owned, m), a.wi = device_array<Real>(owned, m);
    a.records = device_array<Real>(owned, m * record_fields(Out));
    upload_widened(a.x, in.x), upload_widened(a.y, in.y), upload_widened(a.z, in.z);
    upload_widened(a.kx, in.kx), upload_widened(a.ky, in.ky), upload_widened(a.kz, in.kz);
    // The raw float inputs of the μ kernel, freed again at the end.
    std::vector<void*> scratch;
    float* raw[7];
    const std::vector<float>* src[7] = {&in.phi_r, &in.phi_i, &in.d_r, &in.d_i, &in.kx, &in.ky, &in.kz};
    for (int f = 0; f < 7; ++f) {
        raw[f] = device_array<float>(scratch, m);
        harness::check(cudaMemcpy(raw[f], src[f]->data(), sizeof(float) * m, cudaMemcpyHostToDevice), "copy MRI samples to the device");
    }
    harness::Event start, stop;  // the μ kernel's time (loop fission, step F1a)
    start.record(nullptr);
    sample_weights<Out, Real><<<static_cast<int>((m + 255) / 256), 256>>>(raw[0], raw[1], raw[2], raw[3], raw[4], raw[5],
                                                                        raw[6], static_cast<int>(m), a.wr, a.wi, a.records);
    harness::check(cudaGetLastError(), "launch the sample-weight kernel");
    stop.record(nullptr);
    harness::check(cudaDeviceSynchronize(), "compute the sample weights");
    for (void* p : scratch) cudaFree(p);
    return stop.since(start);
}

harness::DevicePlan mri_device_plan(std::size_t voxels, std::size_t samples, MriOutput out, bool with_fp64) {
    harness::DevicePlan plan("the MRI " + std::string(out == MriOutput::q ? "Q" : "F^H d") + " input of " +
                             std::to_string(voxels) + " voxels and " + std::to_string(samples) + " samples");
    // fill_precision(): per precision, its arrays (device_array() of N or M values each, the records of M).
    const auto arrays = [&](std::size_t real, const char* precision) {
        plan.add(std::string("voxel positions and the output (") + precision + ")", voxels, real, 5)
            .add(std::string("sample coordinates and weights (") + precision + ")", samples, real, 5)
            .add(std::string("sample records (") + precision + ")", samples * record_fields(out), real);
    };
    arrays(sizeof(float), "float");
    if (with_fp64) arrays(sizeof(double), "double");
    plan.add<float>("raw samples for the weights", samples, 7);  // freed after each precision: once at the peak
    return plan;
}

MriDevice::MriDevice(const MriInput& in, MriOutput out, bool with_fp64)
    : output_(out), voxels_(static_cast<int>(in.voxels())), samples_(static_cast<int>(in.samples())) {
    harness::require_device_memory(mri_device_plan(in.voxels(), in.samples(), out, with_fp64), -1,
                                   "choose a smaller --size, or free the device (other processes on it)");
    try {
        if (out == MriOutput::q) {
            weights_ms = fill_precision<MriOutput::q>(f32, in, owned_);
            if (with_fp64) fill_precision<MriOutput::q>(f64, in, owned_);
        } else {
            weights_ms = fill_precision<MriOutput::fhd>(f32, in, owned_);
            if (with_fp64) fill_precision<MriOutput::fhd>(f64, in, owned_);
        }
        host_records.resize(in.samples() * static_cast<std::size_t>(record_fields(out)));
        harness::check(cudaMemcpy(host_records.data(), f32.records, sizeof(float) * host_records.size(),
                                  cudaMemcpyDeviceToHost), "copy the sample records back to the host");
    } catch (...) {
        for (void* p : owned_) cudaFree(p);
        throw;
    }
}

MriDevice::~MriDevice() {
    for (void* p : owned_) cudaFree(p);
}

/// The output of one precision at @p indices (all when empty), real parts then imaginary parts.
template <class Real>
static std::vector<double> gather_output(const MriDevice::Arrays<Real>& a, int voxels, const std::vector<std::size_t>& indices) {
    std::vector<Real> r(voxels), i(voxels);
    harness::check(cudaMemcpy(r.data(), a.out_r, sizeof(Real) * voxels, cudaMemcpyDeviceToHost), "copy the MRI output back");
    harness::check(cudaMemcpy(i.data(), a.out_i, sizeof(Real) * voxels, cudaMemcpyDeviceToHost), "copy the MRI output back");
    std::vector<double> out;
    if (indices.empty()) {
        out.assign(r.begin(), r.end());
        out.insert(out.end(), i.begin(), i.end());
        return out;
    }
    for (std::size_t n : indices) out.push_back(r.at(n));
    for (std::size_t n : indices) out.push_back(i.at(n));
    return out;
}

std::vector<double> MriDevice::download(const std::vector<std::size_t>& indices, bool fp64) const {
    return fp64 ? gather_output(f64, voxels_, indices) : gather_output(f32, voxels_, indices);
}

// ---- registration ------------------------------------------------------------------------------------

/// Tolerances against the FP64 reference (relative L2 and max|diff|/max|ref|), by precision and trig.
/// FP64: the sums agree to rounding. FP32 with the library's sin/cos: the phase itself is rounded to
/// float (an absolute error of about |e|·2⁻²⁴ ≈ 4·10⁻⁵ rad at |e| ≈ 600), which bounds what any FP32
/// variant can reach. SFU: `__sinf`/`__cosf` reduce the argument in float, adding an error that grows
/// with |e| (§2.7 of the specification).
constexpr double fp64_tolerance = 1e-9;
/// Tolerance of the FP32 variants with the math library's sin and cos (see fp64_tolerance).
constexpr double library_tolerance = 1e-3;
/// Tolerance of the special-function-unit variants (see fp64_tolerance).
constexpr double hardware_tolerance = 5e-3;

/// Registers the gather variant of the given policies, its name composed from theirs.
template <MriOutput Out, class Memory, class Accumulator, class Trig, class Real, int Unroll>
static void add_gather(harness::Registry<Variant>& r, const std::string& step, const std::string& what) {
    const bool fp64 = sizeof(Real) == 8;
    Variant v;
    v.name = std::string(Out == MriOutput::q ? "q-" : "fhd-") + Memory::name + "-" + Accumulator::name + "-" + Trig::name + "-u" + std::to_string(Unroll) +
             (fp64 ? "-f64" : "-f32");
    v.problem = Out == MriOutput::q ? Problem::mri_q : Problem::mri_fhd;
    v.step = step;
    v.description = what;
    v.fp64 = fp64;
    v.tolerance = fp64 ? fp64_tolerance : std::string(Trig::name) == "sfu" ? hardware_tolerance : library_tolerance;
    v.default_threads = 256;
    v.default_chunk = Memory::chunk(0, record_fields(Out), sizeof(Real), 1 << 30);
    if (v.default_chunk == (1 << 30)) v.default_chunk = 0;
    v.mri = &compute_gather<Out, Memory, Accumulator, Trig, Real, Unroll>;
    v.kernel = reinterpret_cast<const void*>(&mri_gather<Out, Memory, Accumulator, Trig, Real, Unroll>);
    v.dynamic_shared = Memory::tile == INT_MAX ? 0 : sizeof(Real) * record_fields(Out) * Memory::tile;
    r.add(v);
}

/// Registers every variant of output @p Out in the documents' order, then the siblings.
template <MriOutput Out>
static void add_mri_family(harness::Registry<Variant>& r) {
    Variant scatter;
    scatter.name = std::string(Out == MriOutput::q ? "q-" : "fhd-") + "scatter-atomic-libm-f32";
    scatter.problem = Out == MriOutput::q ? Problem::mri_q : Problem::mri_fhd;
    scatter.step = "F0";
    scatter.description = "thread per sample, adds into every voxel with atomicAdd (the race of F0 removed)";
    scatter.tolerance = library_tolerance;
    scatter.default_threads = 256;
    scatter.mri = &compute_scatter<Out>;
    scatter.kernel = reinterpret_cast<const void*>(&mri_scatter<Out>);
    r.add(scatter);
    // [ladder-begin]
    add_gather<Out, GlobalSoA, InGlobal, LibraryTrig, float, 1>(r, "F3", "gather after fission and interchange; all in global memory");
    add_gather<Out, GlobalSoA, InRegisters, LibraryTrig, float, 1>(r, "F4", "voxel position and sums in registers");
    add_gather<Out, ConstantSoA, InRegisters, LibraryTrig, float, 1>(r, "F5", "k-space chunks in constant memory, separate arrays");
    add_gather<Out, ConstantAoS, InRegisters, LibraryTrig, float, 1>(r, "F6", "constant-memory chunks as records");
    add_gather<Out, ConstantAoS, InRegisters, HardwareTrig, float, 1>(r, "F7", "special-function-unit sin and cos");
    add_gather<Out, ConstantAoS, InRegisters, HardwareTrig, float, 4>(r, "F8", "tuned: inner loop unrolled 4 times");
    // [ladder-end]
    // [spaces-begin]
    add_gather<Out, GlobalSoA, InRegisters, HardwareTrig, float, 4>(r, "space", "F8 with samples in global memory");
    add_gather<Out, ReadOnlySoA, InRegisters, HardwareTrig, float, 4>(r, "space", "F8 with samples through the read-only cache");
    add_gather<Out, ConstantSoA, InRegisters, HardwareTrig, float, 4>(r, "space", "F8 with constant memory as separate arrays");
    add_gather<Out, SharedAoS, InRegisters, HardwareTrig, float, 4>(r, "space", "F8 with records tiled in shared memory");
    add_gather<Out, ParamAoS, InRegisters, HardwareTrig, float, 4>(r, "space", "F8 with records as a kernel parameter");
    // [spaces-end]
    // [trig-pairs-begin]
    // The memory-space siblings again with the library's sin and cos: each differs from its SFU sibling above in
    // the trigonometry alone (Ryoo et al.'s share of the MRI speed-up due to the special-function units).
    add_gather<Out, GlobalSoA, InRegisters, LibraryTrig, float, 4>(r, "trig", "global memory, library sin and cos");
    add_gather<Out, ReadOnlySoA, InRegisters, LibraryTrig, float, 4>(r, "trig", "read-only cache, library sin and cos");
    add_gather<Out, ConstantSoA, InRegisters, LibraryTrig, float, 4>(r, "trig", "constant arrays, library sin and cos");
    add_gather<Out, ConstantAoS, InRegisters, LibraryTrig, float, 4>(r, "trig", "constant records, library sin and cos");
    add_gather<Out, SharedAoS, InRegisters, LibraryTrig, float, 4>(r, "trig", "shared-memory tiles, library sin and cos");
    add_gather<Out, ParamAoS, InRegisters, LibraryTrig, float, 4>(r, "trig", "kernel parameter, library sin and cos");
    // [trig-pairs-end]
    // [fp64-begin]
    add_gather<Out, GlobalSoA, InGlobal, LibraryTrig, double, 1>(r, "fp64", "F3 in double precision");
    add_gather<Out, GlobalSoA, InRegisters, LibraryTrig, double, 1>(r, "fp64", "F4 in double precision");
    add_gather<Out, ConstantSoA, InRegisters, LibraryTrig, double, 1>(r, "fp64", "F5 in double precision");
    add_gather<Out, ConstantAoS, InRegisters, LibraryTrig, double, 1>(r, "fp64", "F6 in double precision");
    // [fp64-end]
}

void add_mri_variants(harness::Registry<Variant>& r) {
    add_mri_family<MriOutput::q>(r);
    add_mri_family<MriOutput::fhd>(r);
}

}  // namespace kirk_hwu::gpu
