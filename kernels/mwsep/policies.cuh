/// @file policies.cuh
/// @brief The optimization axes of the thesis as policy types. A kernel variant is one combination:
/// `Variant<Memory, DivSqrt, Loop, Real>`; two variants differ exactly in the policy their names differ in.
#pragma once

#include <cuda_runtime.h>

#include "mwsep/math/point.hpp"
#include "tidal_streams.hpp"

namespace mwsep::cuda {

/// Where the per-stream constants (centre and axis) come from, in kernel arguments.
template <class Real>
struct StreamArgs {
    const Real* global = nullptr;   ///< device array of stream_table_size values
    cudaTextureObject_t texture = 0;  ///< the same values through a texture (int2 per double)
};

/// Stream loop: a runtime `for` over the streams with per-stream sums in shared memory (thesis 4.4.3).
struct RuntimeLoop {
    static constexpr const char* name = "loop";  ///< loop part of the variant name
};
/// Stream loop unrolled at compile time: the stream count is a template argument, sums live in registers.
struct Unrolled {
    static constexpr const char* name = "unrolled";  ///< loop part of the variant name
};

/// Division and square root names for the variant table.
template <class DivSqrt>
struct DivSqrtName;
/// IEEE division and square root: "ieee".
template <>
struct DivSqrtName<math::IeeeDivSqrt> {
    static constexpr const char* name = "ieee";  ///< division part of the variant name
};
/// The thesis's mixed-precision division and square root (spec 5.5): "fast".
template <>
struct DivSqrtName<math::MixedPrecisionDivSqrt> {
    static constexpr const char* name = "fast";  ///< division part of the variant name
};

/// Precision names for the variant table.
template <class Real>
struct PrecisionName;
/// Double precision: "f64".
template <>
struct PrecisionName<double> {
    static constexpr const char* name = "f64";  ///< precision part of the variant name
};
/// Single precision (thesis Table 4.5): "f32".
template <>
struct PrecisionName<float> {
    static constexpr const char* name = "f32";  ///< precision part of the variant name
};

// [variant-type-begin]
/// One kernel variant: a memory policy, a division/square-root policy, a loop policy and a real type.
template <class MemoryT, class DivSqrtT, class LoopT, class RealT>
struct Variant {
    using Memory = MemoryT;    ///< where the stream centres and axes are read from (thesis 4.4.1)
    using DivSqrt = DivSqrtT;  ///< division and square root of the background term (thesis 4.4.2)
    using Loop = LoopT;        ///< runtime or unrolled stream loop (thesis 4.4.3)
    using Real = RealT;        ///< double or float, for all device math (thesis 4.5)
};
// [variant-type-end]

}  // namespace mwsep::cuda
