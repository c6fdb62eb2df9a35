/// @file variant_table.hpp
/// @brief Host-side description of the kernel variants and of the device data they run on.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace mwsep::cuda {

/// Device buffers of one integration area at one precision (all owned by DeviceArea).
template <class Real>
struct AreaBuffers {
    Real* sinb = nullptr;
    Real* sinl = nullptr;
    Real* cosb = nullptr;
    Real* cosl = nullptr;
    Real* r_point = nullptr;
    Real* qw = nullptr;
    Real* volume = nullptr;
    Real* bg = nullptr;
    Real* st = nullptr;
    Real* bg_comp = nullptr;
    Real* st_comp = nullptr;
};

/// One area's grid sizes and its buffers (only those of the precision in use are allocated).
struct DeviceArea {
    int cells = 0;   ///< n_mu x n_nu
    int padded = 0;  ///< cells rounded up to a multiple of 64
    int n_nu = 0;
    int n_r = 0;
    int n_conv = 0;
    AreaBuffers<double> f64;
    AreaBuffers<float> f32;
    template <class Real>
    const AreaBuffers<Real>& buffers() const {
        if constexpr (sizeof(Real) == 8) return f64;
        else return f32;
    }
};

/// The per-evaluation constants of the streams, on the host and on the device.
struct DeviceStreams {
    int count = 0;
    double q_inv_sq = 1;
    double r0 = 1;
    double inv_two_sigma_sq_f64[4] = {};
    float inv_two_sigma_sq_f32[4] = {};
    double host_f64[24] = {};  ///< per stream: centre x, y, z, axis x, y, z
    float host_f32[24] = {};
    double* global_f64 = nullptr;
    float* global_f32 = nullptr;
    cudaTextureObject_t texture_f64 = 0;  ///< int2 texels, one per double
    cudaTextureObject_t texture_f32 = 0;
};

/// How to launch the integral kernel.
struct LaunchOptions {
    int threads_per_block = 64;  ///< the thesis's choice
    int blocks_per_launch = 0;   ///< 0: all cells in one launch per r step; the 2010 code used 128
    bool register_cap = false;   ///< the 48-register build of the thesis's Makefile
    bool keep_context = false;   ///< run in the calling thread's current context (e.g. a green context)
};

using LaunchFn = void (*)(const DeviceArea&, const DeviceStreams&, const LaunchOptions&, cudaStream_t);
using KernelFn = const void* (*)(int streams, bool capped);
using SharedBytesFn = size_t (*)(int threads_per_block);

/// One named variant: its four policies and how to run it.
struct VariantInfo {
    std::string name;       ///< memory-divsqrt-loop-precision
    std::string memory;     ///< global | constant | texture | shared
    std::string divsqrt;    ///< ieee | fast
    std::string loop;       ///< loop | unrolled
    std::string precision;  ///< f64 | f32
    bool double_precision = true;
    bool unrolled = false;
    LaunchFn launch = nullptr;
    KernelFn kernel = nullptr;  ///< the kernel for a stream count (nullptr if not instantiated)
    SharedBytesFn shared_bytes = nullptr;  ///< dynamic shared memory per block
};

/// All 32 variants, in a fixed order (memory family, then division, loop and precision).
const std::vector<VariantInfo>& variants();
/// The variant called @p name, or a CudaError listing the valid names.
const VariantInfo& find_variant(const std::string& name);

/// Each memory family's translation unit adds its eight variants.
void add_global_variants(std::vector<VariantInfo>& out);
void add_constant_variants(std::vector<VariantInfo>& out);
void add_texture_variants(std::vector<VariantInfo>& out);
void add_shared_variants(std::vector<VariantInfo>& out);

}  // namespace mwsep::cuda
