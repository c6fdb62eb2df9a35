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

// [loop-policies-begin]
/// Stream loop: a runtime `for` over the streams with per-stream sums in shared memory (thesis 4.4.3).
/// One kernel instance serves every stream count.
struct RuntimeLoop {
    static constexpr const char* name = "loop";  ///< loop part of the variant name
    /// One instance for any count: the stream count is a kernel argument.
    static constexpr bool fixed_count = false;
    /// Sums per thread this policy keeps in dynamic shared memory.
    static constexpr int shared_sums = max_streams;
    /// The stream count the kernel loops over: the argument's.
    template <int S>
    __host__ __device__ static constexpr int streams(int runtime_count) {
        return runtime_count;
    }
    /// One thread's per-stream sums: slots of the block's shared memory, blockDim.x apart. Every member
    /// takes the stream count the kernel got from streams().
    template <class Real, int S>
    struct Sums {
        Real* slot;  ///< this thread's sum of stream 0
        /// Zeroes the thread's @p count sums, which start at @p shared (the block's sum area) + threadIdx.x.
        __device__ Sums(Real* shared, int count) : slot(shared + threadIdx.x) {
            for (int s = 0; s < count; ++s) slot[s * blockDim.x] = 0;
        }
        /// Adds term(s) to the sum of every stream s, in a loop the compiler must not unroll.
        template <class Term>
        __device__ void add(const Term& term, int count) {
#pragma unroll 1
            for (int s = 0; s < count; ++s) slot[s * blockDim.x] += term(s);
        }
        /// Calls f(s) for every stream s.
        template <class F>
        __device__ void for_each(const F& f, int count) const {
            for (int s = 0; s < count; ++s) f(s);
        }
        /// The sum of stream @p s.
        __device__ Real operator[](int s) const { return slot[s * blockDim.x]; }
    };
};
/// Stream loop unrolled at compile time: the stream count is a template argument, sums live in registers.
struct Unrolled {
    static constexpr const char* name = "unrolled";  ///< loop part of the variant name
    /// One instance per stream count.
    static constexpr bool fixed_count = true;
    /// No sums in shared memory.
    static constexpr int shared_sums = 0;
    /// The stream count the kernel loops over: the template argument.
    template <int S>
    __host__ __device__ static constexpr int streams(int) {
        return S;
    }
    /// One thread's per-stream sums, in registers (an array indexed only by unrolled loop counters).
    template <class Real, int S>
    struct Sums {
        Real reg[S > 0 ? S : 1];  ///< the sum of each stream
        /// Zeroes the S sums (the shared memory and the count, which is S, are not needed).
        __device__ Sums(Real*, int) {
#pragma unroll
            for (int s = 0; s < S; ++s) reg[s] = 0;
        }
        /// Adds term(s) to the sum of every stream s, unrolled.
        template <class Term>
        __device__ void add(const Term& term, int) {
#pragma unroll
            for (int s = 0; s < S; ++s) reg[s] += term(s);
        }
        /// Calls f(s) for every stream s, unrolled.
        template <class F>
        __device__ void for_each(const F& f, int) const {
#pragma unroll
            for (int s = 0; s < S; ++s) f(s);
        }
        /// The sum of stream @p s.
        __device__ Real operator[](int s) const { return reg[s]; }
    };
};
// [loop-policies-end]

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
