/// @file variants.hpp
/// @brief The named variants of the study, as the host code sees them: matrix-multiplication kernels (the
/// paper's ladder, the later steps, the library) and the bandwidth-bound stream kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>

#include "harness/registry.hpp"

namespace ryoo {

/// What the CUDA runtime is asked about a kernel (registers, local memory, occupancy): its function and
/// launch shape. A library call has no function.
struct KernelFacts {
    const void* function = nullptr;  ///< the __global__ function, or nullptr for a library call
    int threads_per_block = 0;       ///< threads of one block
    std::size_t dynamic_smem = 0;    ///< dynamic shared memory per block [bytes] (the residency ballast)
    int imposed_blocks_per_sm = 0;   ///< blocks per SM the ballast leaves room for (0: none imposed)
};

/// A matrix-multiplication variant made ready for one device: its facts and how to launch it.
struct GemmLaunch {
    KernelFacts facts;  ///< what the runtime can report about it
    /// Computes c = a b for n x n row-major matrices on @p stream (n a multiple of the variant's multiple).
    std::function<void(const float* a, const float* b, float* c, int n, cudaStream_t stream)> run;
};

/// One named matrix-multiplication variant.
struct GemmVariant {
    std::string name;           ///< composed from its policies: "tiled-16", "register-tiled-vector-double-warp"
    std::string step;           ///< the step of the ladder: V0 .. V3, cliff, M1 .. M4, library
    std::string summary;        ///< one line on what it changes
    int multiple = 16;          ///< matrices are padded with zeros to a multiple of this
    double input_roundoff = 0;  ///< relative change of the inputs before multiplying (0: used as stored)
    /// Prepares the variant on the current device (shared-memory attributes, a library handle); throws
    /// harness::CudaError or std::runtime_error when the device cannot run it as declared.
    std::function<GemmLaunch()> prepare;
};

/// One named stream variant: SAXPY or a copy, over float arrays.
struct StreamVariant {
    std::string name;           ///< "saxpy-scalar", "copy-vector", ...
    std::string summary;        ///< one line on what it does
    int width = 1;              ///< the element count must be a multiple of this
    int bytes_per_element = 0;  ///< device-memory bytes moved per element (read plus written)
    int flops_per_element = 0;  ///< floating-point operations per element
    bool is_saxpy = false;      ///< y <- alpha x + y (else: y <- x)
    const void* function = nullptr;  ///< the kernel, or nullptr for cudaMemcpy
    /// Runs it once over @p count elements on @p stream.
    std::function<void(float alpha, const float* x, float* y, std::size_t count, cudaStream_t stream)> run;
};

/// Adds V0-V3 and the residency emulation (kernels/ryoo/classic_variants.cu).
void add_classic_variants(harness::Registry<GemmVariant>& registry);
/// Adds the register-tiled steps M1-M4 (kernels/ryoo/register_tiled_variants.cu).
void add_register_tiled_variants(harness::Registry<GemmVariant>& registry);
/// Adds cuBLAS SGEMM in FP32 and with TF32 tensor cores (src/ryoo/cuda/library_variants.cpp).
void add_library_variants(harness::Registry<GemmVariant>& registry);
/// Adds SAXPY and the copy kernels (kernels/ryoo/stream_variants.cu).
void add_stream_variants(harness::Registry<StreamVariant>& registry);

/// Every matrix-multiplication variant, in the order of the ladder.
const harness::Registry<GemmVariant>& gemm_variants();
/// Every stream variant.
const harness::Registry<StreamVariant>& stream_variants();

}  // namespace ryoo
