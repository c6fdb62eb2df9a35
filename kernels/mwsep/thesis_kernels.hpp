/// @file thesis_kernels.hpp
/// @brief The thesis's kernel family as its host sees it: the device data of one area, and per variant
/// the functions that upload its constants and queue its kernels.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "kernel_set.hpp"
#include "tidal_streams.hpp"

namespace mwsep::cuda {

/// Device buffers of one integration area at one precision for the thesis's kernels (owned by the family's
/// DeviceMemory).
template <class Real>
struct ThesisBuffers : CellDirections<Real> {
    /// Convolution-point distances [kpc], [k * n_conv + c].
    Real* r_point = nullptr;
    /// Convolution-point weights qw_r3_N, [k * n_conv + c].
    Real* qw = nullptr;
    /// V' = reff_xr_rp3 x irv x ids, [k * n_nu + j] (spec 2.9).
    Real* volume = nullptr;
    /// Per-cell background accumulator [padded].
    Real* bg = nullptr;
    /// Per-cell stream accumulators [s * padded + p].
    Real* st = nullptr;
    /// Kahan compensation of bg: single precision only (nullptr in double precision, which adds plainly).
    Real* bg_comp = nullptr;
    /// Kahan compensation of st: single precision only.
    Real* st_comp = nullptr;
};

/// One area's grid sizes (one launch, or series of chunks, per r bin) and its buffers (only those of the
/// precision in use are allocated).
struct ThesisArea : AreaGrid {
    /// Buffers of the double-precision variants.
    ThesisBuffers<double> f64;
    /// Buffers of the single-precision variants.
    ThesisBuffers<float> f32;
    /// The buffers of precision Real.
    template <class Real>
    const ThesisBuffers<Real>& buffers() const {
        if constexpr (sizeof(Real) == 8) return f64;
        else return f32;
    }
};

/// Uploads a variant's constant-memory tables (1/(2 sigma^2), and the stream table where its memory
/// policy keeps it there) on a CUDA queue; the same for every area.
using ThesisUploadFn = void (*)(const TidalStreams& streams, cudaStream_t queue);
/// Queues a variant's integral kernels for one area on a CUDA queue, without host synchronisation.
using ThesisLaunchFn = void (*)(const ThesisArea& area, const TidalStreams& streams, const LaunchOptions& options,
                                cudaStream_t queue);

/// One variant of the thesis's family: its kernels, and how to upload and launch them.
struct ThesisVariant {
    /// Name, precision, kernel instances and shared memory.
    KernelSet kernels;
    /// Uploads its constants; called before the timed window.
    ThesisUploadFn upload = nullptr;
    /// Launches it over one area.
    ThesisLaunchFn launch = nullptr;
};

/// `add_<name>_variants`: adds the eight variants of one memory family, defined in memory_<name>.cu; one
/// declaration per line of memory_families.def (add_global_variants, add_constant_variants, ...).
#define MWSEP_MEMORY_FAMILY(name) void add_##name##_variants(std::vector<ThesisVariant>& out);
#include "memory_families.def"

}  // namespace mwsep::cuda
