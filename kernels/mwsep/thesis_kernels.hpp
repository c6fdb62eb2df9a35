/// @file variant_table.hpp
/// @brief Host-side description of the kernel variants and of the device data they run on.
#pragma once

#include <cuda_runtime.h>

#include "mwsep/math/constants.hpp"
#include "mwsep/math/exp_table.hpp"

#include <string>
#include <vector>

namespace mwsep::cuda {

/// Device buffers of one integration area at one precision (all owned by DeviceArea).
template <class Real>
struct AreaBuffers {
    Real* sinb = nullptr;     ///< per cell [padded, zero-filled past the cells]: sin b of the cell centre
    Real* sinl = nullptr;     ///< per cell: sin l
    Real* cosb = nullptr;     ///< per cell: cos b
    Real* cosl = nullptr;     ///< per cell: cos l
    Real* r_point = nullptr;  ///< convolution-point distances [kpc], [k * n_conv + c]
    Real* qw = nullptr;       ///< convolution-point weights qw_r3_N, [k * n_conv + c]
    Real* volume = nullptr;   ///< V' = reff_xr_rp3 x irv x ids, [k * n_nu + j] (spec 2.9)
    Real* bg = nullptr;       ///< per-cell background accumulator [padded]
    Real* st = nullptr;       ///< per-cell stream accumulators [s * padded + p]
    Real* bg_comp = nullptr;  ///< Kahan compensation of bg (stays 0 in double precision)
    Real* st_comp = nullptr;  ///< Kahan compensation of st (stays 0 in double precision)
    // Modern variants only:
    Real* folded_r = nullptr;  ///< every point of a line of sight, r-major (FoldedLineOfSight::r_point)
    Real* folded_w = nullptr;  ///< their folded weights (FoldedLineOfSight::weight)
    Real* ids = nullptr;       ///< per nu bin: sin(nu_hi) - sin(nu_lo)
    Real* cell_out = nullptr;  ///< per component and cell: the cell's integral [c * padded + p]

};

/// One area's grid sizes and its buffers (only those of the precision in use are allocated).
struct DeviceArea {
    int cells = 0;   ///< n_mu x n_nu
    int padded = 0;  ///< cells rounded up to a multiple of 64
    int n_nu = 0;    ///< nu bins: a cell p has nu index p % n_nu
    int n_r = 0;     ///< r bins: one launch (or series of chunks) each
    int n_conv = 0;  ///< convolution points per r bin
    // Modern variants only:
    int n_points = 0;            ///< points per line of sight (n_r x n_conv)
    double r_min = 0;            ///< smallest point distance [kpc]
    double r_max = 0;            ///< largest point distance [kpc]
    double weight_sum = 0;       ///< sum of the folded weights
    double skip_threshold[constants::max_gpu_streams] = {};  ///< per stream (see cpu/stream_skipping.hpp)
    int r_pieces = 1;            ///< pieces of a line of sight, one thread each (modern_r_pieces())
    int first_chunk = 0;         ///< this device's slice of the area: reduction chunks [first_chunk,
    int last_chunk = 0;          ///< last_chunk), cells mu-major, so a range of mu rows (see chunk_cells)
    double* partials = nullptr;  ///< device: per component c and reduction chunk i, the chunk's compensated
                                 ///< sum and its compensation at [(c * reduction_chunks + i) * 2 + 0/1]
    const math::ExpTableEntry* exp_table = nullptr;  ///< device: the table of math::exp_from_steps()
    double* block_weight = nullptr;  ///< device: per r bin, the sum of its folded weights
    double* block_r_min = nullptr;   ///< device: per r bin, its smallest point distance
    double* block_r_max = nullptr;   ///< device: per r bin, its largest point distance
    AreaBuffers<double> f64;  ///< buffers of the double-precision variants
    AreaBuffers<float> f32;   ///< buffers of the single-precision variants
    /// The buffers of precision Real.
    template <class Real>
    const AreaBuffers<Real>& buffers() const {
        if constexpr (sizeof(Real) == 8) return f64;
        else return f32;
    }
};

/// The modern variants reduce each component's cells in this many fixed chunks of consecutive cells; the
/// chunk boundaries depend only on the cell count, so the result does not depend on the launch
/// configuration or on how many devices share the area.
inline constexpr int reduction_chunks = 1024;
/// Cells per reduction chunk: chunk i holds the cells [i * chunk_cells, (i + 1) * chunk_cells) below @p cells.
__host__ __device__ inline int chunk_cells(int cells) { return (cells + reduction_chunks - 1) / reduction_chunks; }

/// Pieces the modern kernels split each line of sight into, one thread per cell and piece. Without them a
/// large unit has about two waves of blocks, and the second, partly empty one costs a whole wave; with at
/// least 2^20 work items the last wave is a small fraction of ten or more. Pieces keep 32 r bins or more,
/// so the per-thread set-up stays negligible. It depends only on the grid, never on the device or the
/// launch configuration, so results are the same everywhere.
inline int modern_r_pieces(int cells, int n_r) {
    const int wanted = ((1 << 20) + cells - 1) / cells;
    const int most = n_r / 32 > 1 ? n_r / 32 : 1;
    return wanted < 1 ? 1 : (wanted > most ? most : wanted);
}

/// Values in the stream table: centre x, y, z and axis x, y, z for each of the most streams a kernel takes.
inline constexpr int stream_table_size = 6 * constants::max_gpu_streams;

/// The per-evaluation constants of the streams, on the host and on the device.
struct DeviceStreams {
    int count = 0;                        ///< number of streams S, at most 4
    double q_inv_sq = 1;                  ///< 1 / q^2 of the background
    double r0 = 1;                        ///< background core radius r_0 [kpc]
    double inv_two_sigma_sq_f64[constants::max_gpu_streams] = {};  ///< 1 / (2 sigma_s^2) per stream, for constant memory
    float inv_two_sigma_sq_f32[constants::max_gpu_streams] = {};   ///< the same in single precision
    double host_f64[stream_table_size] = {};  ///< per stream: centre x, y, z, axis x, y, z
    float host_f32[stream_table_size] = {};              ///< host_f64 rounded to float
    double* global_f64 = nullptr;         ///< device copy of host_f64: read by the global and shared families, viewed by the texture
    float* global_f32 = nullptr;          ///< device copy of host_f32
    cudaTextureObject_t texture_f64 = 0;  ///< int2 texels, one per double
    cudaTextureObject_t texture_f32 = 0;  ///< float texels over global_f32
};

/// How to launch the integral kernel.
struct LaunchOptions {
    int threads_per_block = 64;  ///< the thesis's choice
    int blocks_per_launch = 0;   ///< 0: all cells in one launch per r step; the 2010 code used 128
    bool register_cap = false;   ///< the 48-register build of the thesis's Makefile
    bool keep_context = false;   ///< run in the calling thread's current context (e.g. a green context)
    int slices = 0;              ///< modern variants: split each area's mu range into this many slices, dealt
                                 ///< round-robin to the devices in use (0: one slice per device)
};

/// Uploads a variant's constants and queues its integral kernels for one area on a CUDA stream.
using LaunchFn = void (*)(const DeviceArea&, const DeviceStreams&, const LaunchOptions&, cudaStream_t);
/// The kernel of a variant for a stream count, register-capped or not; nullptr if not instantiated.
using KernelFn = const void* (*)(int streams, bool capped);
/// Dynamic shared memory [bytes] per block of a variant, for a block size.
using SharedBytesFn = size_t (*)(int threads_per_block);

/// One named variant: its four policies and how to run it.
struct VariantInfo {
    std::string name;       ///< memory-divsqrt-loop-precision
    std::string memory;     ///< global | constant | texture | shared
    std::string divsqrt;    ///< ieee | fast
    std::string loop;       ///< loop | unrolled
    std::string precision;  ///< f64 | f32
    bool double_precision = true;  ///< Real is double: the device must support FP64
    bool unrolled = false;  ///< stream count fixed at compile time (instances for 0 to 4 streams)
    LaunchFn launch = nullptr;  ///< runs the variant over one area
    KernelFn kernel = nullptr;  ///< the kernel for a stream count (nullptr if not instantiated)
    bool has_capped_build = true;  ///< a 48-register build exists (the thesis variants)
    bool device_reduced = false;   ///< reduces on the device into DeviceArea::partials (the modern variants)
    SharedBytesFn shared_bytes = nullptr;  ///< dynamic shared memory per block
};

/// All 32 variants, in a fixed order (memory family, then division, loop and precision).
const std::vector<VariantInfo>& variants();
/// The variant called @p name, or a CudaError listing the valid names.
const VariantInfo& find_variant(const std::string& name);

/// Adds the eight global-memory variants (memory_global.cu); each memory family's translation unit has one
/// such function.
void add_global_variants(std::vector<VariantInfo>& out);
/// Adds the eight constant-memory variants (memory_constant.cu).
void add_constant_variants(std::vector<VariantInfo>& out);
/// Adds the eight texture variants (memory_texture.cu).
void add_texture_variants(std::vector<VariantInfo>& out);
/// Adds the eight shared-memory variants (memory_shared.cu).
void add_shared_variants(std::vector<VariantInfo>& out);
/// The modern family (kernels/modern.cu): modern-f64 and modern-f32.
void add_modern_variants(std::vector<VariantInfo>& out);

}  // namespace mwsep::cuda
