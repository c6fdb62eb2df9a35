/// @file mri_policies.cuh
/// @brief The axes of the MRI ladder as policy types. A gather variant is one combination
/// `mri_gather<Out, Memory, Accumulator, Trig, Real, Unroll>`; two variants differ exactly in the policy
/// their names differ in. Each memory policy says where the read-only sample records live while the
/// voxel loop reads them, and how the host stages a chunk of them there.
#pragma once

#include <cuda_runtime.h>

#include <climits>

#include "gpu_variants.hpp"
#include "harness/check.hpp"

namespace kirk_hwu::gpu {

/// One sample as the inner loop sees it.
template <class Real>
struct Sample {
    Real kx;  ///< position in k-space, x
    Real ky;  ///< position in k-space, y
    Real kz;  ///< position in k-space, z
    Real wr;  ///< weight, real part
    Real wi;  ///< weight, imaginary part (zero for Q)
};

/// The constant-memory bank the staged policies fill: 64 KB, the programming model's limit. Defined here
/// because, without separate compilation, a __constant__ variable lives in the one file that includes this.
__constant__ double mri_constant_bank[8192];

/// Largest records a chunk of @p fields values of @p bytes each can hold in @p capacity_bytes.
constexpr int records_fitting(int capacity_bytes, int fields, int bytes) { return capacity_bytes / (fields * bytes); }

// [memory-policies-begin]
/// Samples read from global memory through ordinary loads, separate arrays (steps F3, F4).
struct GlobalSoA {
    static constexpr const char* name = "global";  ///< memory part of the variant name
    static constexpr int tile = INT_MAX;           ///< records a block stages at a time (none)
    /// Kernel argument: the separate arrays.
    template <class Real>
    struct Source {
        const Real* kx;  ///< sample kx, from the first sample of the launch
        const Real* ky;  ///< sample ky
        const Real* kz;  ///< sample kz
        const Real* wr;  ///< weights, real parts
        const Real* wi;  ///< weights, imaginary parts
    };
    /// The whole input in one launch.
    static int chunk(int, int, int, int samples) { return samples; }
    /// Points the source at sample @p first.
    template <class Real>
    static Source<Real> stage(const MriDevice::Arrays<Real>& a, const std::vector<float>&, int fields, int first,
                              int, cudaStream_t) {
        (void)fields;
        return {a.kx + first, a.ky + first, a.kz + first, a.wr + first, a.wi + first};
    }
    /// Nothing to stage inside the block.
    template <class Real>
    __device__ static void stage_tile(const Source<Real>&, Real*, int, int, int) {}
    /// Sample @p j of the launch.
    template <class Real, int Fields>
    __device__ static Sample<Real> get(const Source<Real>& s, const Real*, int j, int) {
        return {s.kx[j], s.ky[j], s.kz[j], s.wr[j], Fields > 4 ? s.wi[j] : Real(0)};
    }
};

/// Samples read from global memory through the read-only data cache (`__ldg`), separate arrays.
struct ReadOnlySoA : GlobalSoA {
    static constexpr const char* name = "readonly";  ///< memory part of the variant name
    /// Sample @p j of the launch, through the read-only path.
    template <class Real, int Fields>
    __device__ static Sample<Real> get(const Source<Real>& s, const Real*, int j, int) {
        return {__ldg(s.kx + j), __ldg(s.ky + j), __ldg(s.kz + j), __ldg(s.wr + j), Fields > 4 ? __ldg(s.wi + j) : Real(0)};
    }
};

// [constant-soa-begin]
/// Chunks of samples copied into constant memory as separate arrays, one launch per chunk (step F5).
struct ConstantSoA {
    static constexpr const char* name = "constsoa";  ///< memory part of the variant name
    static constexpr int tile = INT_MAX;             ///< records a block stages at a time (none)
    /// Kernel argument: the arrays' stride in the bank.
    template <class Real>
    struct Source {
        int stride;  ///< values between one array's start and the next's
    };
    /// The requested chunk, capped at what the bank holds.
    static int chunk(int requested, int fields, int bytes, int) {
        const int cap = records_fitting(sizeof(mri_constant_bank), fields, bytes);
        return requested > 0 && requested < cap ? requested : cap;
    }
    /// Copies each array's chunk to its place in the bank (device to device, on the stream).
    template <class Real>
    static Source<Real> stage(const MriDevice::Arrays<Real>& a, const std::vector<float>&, int fields, int first,
                              int count, cudaStream_t stream) {
        const int stride = chunk(0, fields, sizeof(Real), 0);
        const Real* arrays[5] = {a.kx, a.ky, a.kz, a.wr, a.wi};
        for (int f = 0; f < fields; ++f)
            harness::check(cudaMemcpyToSymbolAsync(mri_constant_bank, arrays[f] + first, sizeof(Real) * count,
                                                   sizeof(Real) * stride * f, cudaMemcpyDeviceToDevice, stream),
                           "copy a chunk of samples to constant memory");
        return {stride};
    }
    /// Nothing to stage inside the block.
    template <class Real>
    __device__ static void stage_tile(const Source<Real>&, Real*, int, int, int) {}
    /// Sample @p j of the chunk.
    template <class Real, int Fields>
    __device__ static Sample<Real> get(const Source<Real>& s, const Real*, int j, int) {
        const Real* bank = reinterpret_cast<const Real*>(mri_constant_bank);
        return {bank[j], bank[s.stride + j], bank[2 * s.stride + j], bank[3 * s.stride + j],
                Fields > 4 ? bank[4 * s.stride + j] : Real(0)};
    }
};

// [constant-soa-end]
// [constant-aos-begin]
/// Chunks of sample records copied into constant memory, one record per sample (step F6).
struct ConstantAoS : ConstantSoA {
    static constexpr const char* name = "constaos";  ///< memory part of the variant name
    /// Copies the chunk of records to the start of the bank.
    template <class Real>
    static Source<Real> stage(const MriDevice::Arrays<Real>& a, const std::vector<float>&, int fields, int first,
                              int count, cudaStream_t stream) {
        harness::check(cudaMemcpyToSymbolAsync(mri_constant_bank, a.records + static_cast<std::size_t>(first) * fields,
                                               sizeof(Real) * fields * count, 0, cudaMemcpyDeviceToDevice, stream),
                       "copy a chunk of sample records to constant memory");
        return {fields};
    }
    /// Record @p j of the chunk.
    template <class Real, int Fields>
    __device__ static Sample<Real> get(const Source<Real>&, const Real*, int j, int) {
        const Real* r = reinterpret_cast<const Real*>(mri_constant_bank) + j * Fields;
        return {r[0], r[1], r[2], r[3], Fields > 4 ? r[4] : Real(0)};
    }
};

// [constant-aos-end]
// [shared-begin]
/// Records loaded by each block into shared memory, a tile at a time, then read by all its threads.
struct SharedAoS {
    static constexpr const char* name = "shared";  ///< memory part of the variant name
    static constexpr int tile = 512;               ///< records per tile (10 KB of F^H d records in float)
    /// Kernel argument: the records in global memory.
    template <class Real>
    struct Source {
        const Real* records;  ///< from the launch's first sample
        int fields;           ///< values per record
    };
    /// The whole input in one launch.
    static int chunk(int, int, int, int samples) { return samples; }
    /// Points the source at sample @p first.
    template <class Real>
    static Source<Real> stage(const MriDevice::Arrays<Real>& a, const std::vector<float>&, int fields, int first,
                              int, cudaStream_t) {
        return {a.records + static_cast<std::size_t>(first) * fields, fields};
    }
    /// The block copies records [@p begin, @p begin + @p count) into @p smem; every thread takes part.
    template <class Real>
    __device__ static void stage_tile(const Source<Real>& s, Real* smem, int begin, int count, int threads) {
        __syncthreads();  // the previous tile is no longer read
        for (int v = threadIdx.x; v < count * s.fields; v += threads) smem[v] = s.records[begin * s.fields + v];
        __syncthreads();
    }
    /// Sample @p j of the launch, from the tile that starts at @p tile_begin.
    template <class Real, int Fields>
    __device__ static Sample<Real> get(const Source<Real>& s, const Real* smem, int j, int tile_begin) {
        (void)s;
        const Real* r = smem + (j - tile_begin) * Fields;
        return {r[0], r[1], r[2], r[3], Fields > 4 ? r[4] : Real(0)};
    }
};

// [shared-end]
// [param-begin]
/// Chunks of records passed by value as a `__grid_constant__` kernel parameter (up to 32,764 bytes since
/// CUDA 12.1), one launch per chunk; float only.
struct ParamAoS {
    static constexpr const char* name = "param";  ///< memory part of the variant name
    static constexpr int tile = INT_MAX;          ///< records a block stages at a time (none)
    static constexpr int capacity_floats = 7680;  ///< 30,720 bytes: room for the other parameters
    /// Kernel argument: the chunk itself.
    template <class Real>
    struct Source {
        Real values[capacity_floats];  ///< the chunk's records
        int fields;                    ///< values per record
    };
    /// The requested chunk, capped at what the parameter holds.
    static int chunk(int requested, int fields, int, int) {
        const int cap = capacity_floats / fields;
        return requested > 0 && requested < cap ? requested : cap;
    }
    /// Copies the chunk's records from the host copy into the parameter.
    template <class Real>
    static Source<Real> stage(const MriDevice::Arrays<Real>&, const std::vector<float>& host, int fields, int first,
                              int count, cudaStream_t) {
        static_assert(sizeof(Real) == 4, "kernel-parameter staging is float only");
        Source<Real> s;
        for (int v = 0; v < count * fields; ++v) s.values[v] = host[static_cast<std::size_t>(first) * fields + v];
        s.fields = fields;
        return s;
    }
    /// Nothing to stage inside the block.
    template <class Real>
    __device__ static void stage_tile(const Source<Real>&, Real*, int, int, int) {}
    /// Record @p j of the chunk.
    template <class Real, int Fields>
    __device__ static Sample<Real> get(const Source<Real>& s, const Real*, int j, int) {
        const Real* r = s.values + j * Fields;
        return {r[0], r[1], r[2], r[3], Fields > 4 ? r[4] : Real(0)};
    }
};
// [param-end]
// [memory-policies-end]

// [accumulator-policies-begin]
/// Step F3: every iteration reads the voxel's position and adds into its output in global memory.
struct InGlobal {
    static constexpr const char* name = "memacc";  ///< accumulator part of the variant name
    static constexpr bool registers = false;       ///< position and sums stay in global memory
};
/// Step F4 onwards: position and sums in registers, the output read once and written once per launch.
struct InRegisters {
    static constexpr const char* name = "regs";  ///< accumulator part of the variant name
    static constexpr bool registers = true;      ///< position and sums in registers
};
// [accumulator-policies-end]

// [trig-policies-begin]
/// The math library's sin and cos (accurate to a few ulp over the whole range).
struct LibraryTrig {
    static constexpr const char* name = "libm";  ///< trigonometry part of the variant name
    /// sin and cos of @p e.
    template <class Real>
    __device__ static void sincos_of(Real e, Real* s, Real* c) {
        sincos(e, s, c);
    }
};
/// Step F7: the special-function unit's approximations (`__sinf`, `__cosf`); float only.
struct HardwareTrig {
    static constexpr const char* name = "sfu";  ///< trigonometry part of the variant name
    /// sin and cos of @p e on the special-function unit.
    __device__ static void sincos_of(float e, float* s, float* c) {
        *s = __sinf(e);
        *c = __cosf(e);
    }
};
// [trig-policies-end]

}  // namespace kirk_hwu::gpu
