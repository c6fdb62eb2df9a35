/// @file kernel_set.hpp
/// @brief What every kernel variant tells its host: its name, its kernel instances with their compiled
/// identity, its shared memory, and how it is launched.
#pragma once

#include <cstddef>
#include <string>

namespace mwsep::cuda {

/// The grid sizes of one integration area, the same for both kernel families' device data.
struct AreaGrid {
    /// n_mu x n_nu.
    int cells = 0;
    /// Cells rounded up to a multiple of 64: the length of every per-cell buffer.
    int padded = 0;
    /// nu bins: a cell p has nu index p % n_nu.
    int n_nu = 0;
    /// r bins.
    int n_r = 0;
    /// Convolution points per r bin.
    int n_conv = 0;
};

/// The sky direction of every cell of one area on the device, at one precision: both families read it.
template <class Real>
struct CellDirections {
    /// Per cell [padded, zero-filled past the cells]: sin b of the cell centre.
    Real* sinb = nullptr;
    /// Per cell: sin l.
    Real* sinl = nullptr;
    /// Per cell: cos b.
    Real* cosb = nullptr;
    /// Per cell: cos l.
    Real* cosl = nullptr;
};

/// How to launch the integral kernels.
struct LaunchOptions {
    /// Threads per block; 64 was the thesis's choice.
    int threads_per_block = 64;
    /// Thesis variants: 0 puts all cells in one launch per r step; the 2010 code used chunks of 128 blocks.
    int blocks_per_launch = 0;
    /// The 48-register build of the thesis's Makefile.
    bool register_cap = false;
    /// Run in the calling thread's current context (e.g. a green context).
    bool keep_context = false;
    /// Modern variants: split each area's mu range into this many slices, dealt round-robin to the
    /// devices in use (0: one slice per device).
    int slices = 0;
    /// Thesis variants: blocks resident per SM imposed with unused dynamic shared memory (ballast), the GT200's
    /// limit of thesis 4.3 emulated (16 KB per SM, 4 KB per block: 4 blocks); 0: none imposed.
    int blocks_per_sm = 0;
};

/// The kernel of a variant for a stream count, register-capped or not; nullptr if not instantiated.
using KernelFn = const void* (*)(int streams, bool capped);
/// The identity of that kernel as the compiler's report names it: its demangled name without the return
/// type and the parameter list, e.g. `ns::integral_kernel<ns::Variant<...>, 3>`; empty if not instantiated.
using KernelIdentityFn = std::string (*)(int streams, bool capped);
/// Dynamic shared memory [bytes] per block of a variant, for a block size.
using SharedBytesFn = std::size_t (*)(int threads_per_block);

/// The policy axes of a variant, each as its name is spelled in the variant's name; written beside every
/// timing so that results are grouped by axis, not by re-composing names.
struct VariantAxes {
    std::string family;     ///< thesis, modern or compressed (a different algorithm: compressed_kernels.hpp)
    std::string memory;     ///< global, constant, texture or shared; for modern-f64/f32 empty; for the lean
                            ///< modern variants how the line of sight is read: split or rw (interleaved)
    std::string divsqrt;    ///< ieee or fast; for modern-f64/f32 empty; for the lean variants the exponential:
                            ///< table, biased or exp8 (lean.cu)
    std::string loop;       ///< loop or unrolled; for modern-f64/f32 empty; for the lean variants the skip
                            ///< test: bins, sub4 or sub4log (lean.cu)
    std::string precision;  ///< f64 or f32
};

/// The kernels of one variant, whichever family it belongs to.
struct KernelSet {
    /// The variant's name, composed from its policies (memory-divsqrt-loop-precision) or its family's.
    std::string name;
    /// Its policy axes.
    VariantAxes axes;
    /// Real is double: the device must support FP64.
    bool double_precision = true;
    /// The stream count is fixed at compile time (one instance for each of 0 to max_streams streams);
    /// otherwise one instance serves every count.
    bool unrolled = false;
    /// The kernel for a stream count.
    KernelFn kernel = nullptr;
    /// The compiled identity of that kernel.
    KernelIdentityFn identity = nullptr;
    /// Dynamic shared memory per block.
    SharedBytesFn shared_bytes = nullptr;
};

}  // namespace mwsep::cuda
