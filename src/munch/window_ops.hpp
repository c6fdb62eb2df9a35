/// @file window_ops.hpp
/// @brief The per-point math of every sliding-window computation of this study, shared by the CPU
/// references and every CUDA kernel: one output is a reduction over a window of the input.
///
/// All three computations have one form. With an input x of length n, taps h[0..w) and a shift s,
///     out[i] = reduce_{k=0}^{w-1} combine(x[i - s + k], h[k]),   i in [0, out_len),
/// where x outside [0, n) reads as the operation's padding value. The operations differ only in
/// `combine`, in the start of the reduction and in that padding:
///  - Convolve: the full discrete convolution P = M * N (out_len = n + w - 1) is this form with the filter
///    reversed (h[k] = N[w-1-k]) and s = w - 1; the signal is padded with zeros;
///  - Erode: the grey-scale erosion by a structuring element L of half-width r (w = 2r + 1):
///    min_k (x[i - r + k] - L[k]); the signal is padded with +infinity (a missing sample never wins);
///  - Dilate: the dilation of an eroded signal e: max_k (e[i - r + k] + L[w-1-k]); padded with -infinity.
/// Each operation also names the neutral tap, the value that pads a filter to a whole number of chunks
/// without changing any output (0 for the sum; -infinity for min(x - h) and max(x + h)).
#pragma once

#include <cstddef>

/// Marks the per-point functions for both host and device (plain inline in C++ builds).
#if defined(__CUDACC__)
#define MUNCH_HD __host__ __device__ __forceinline__
#else
#define MUNCH_HD inline
#endif

namespace munch {

/// +infinity in float, usable in device code.
MUNCH_HD float positive_infinity() { return __builtin_huge_valf(); }

// [operations-begin]
/// The smaller of @p a and @p b. On the GPU fminf is one instruction; on the CPU a comparison, which the
/// compiler keeps inline where fminf would be a library call. Both agree whenever neither is a NaN (and
/// no NaN arises here: an input is finite or +inf, a tap finite or -inf); at most the sign of a zero
/// may differ, and -0 equals +0.
MUNCH_HD float smaller(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fminf(a, b);
#else
    return b < a ? b : a;
#endif
}

/// The larger of @p a and @p b (as smaller()).
MUNCH_HD float larger(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fmaxf(a, b);
#else
    return b > a ? b : a;
#endif
}

/// The sum of products: one term of a convolution.
struct Convolve {
    /// Name of the operation in variant names and result files.
    static constexpr const char* name = "convolve";
    /// The start of the reduction.
    MUNCH_HD static float identity() { return 0.0f; }
    /// What the input reads as outside its bounds.
    MUNCH_HD static float padding() { return 0.0f; }
    /// The tap that changes nothing.
    MUNCH_HD static float neutral_tap() { return 0.0f; }
    /// Adds one product to the running sum (a fused multiply-add where the compiler contracts it; with
    /// small-integer data both round to the same exact value).
    MUNCH_HD static float combine(float acc, float x, float h) { return acc + x * h; }
    /// Joins two partial results (of two filter chunks).
    MUNCH_HD static float merge(float a, float b) { return a + b; }
};

/// The minimum of differences: one term of an erosion by a non-flat structuring element.
struct Erode {
    /// Name of the operation in variant names and result files.
    static constexpr const char* name = "erode";
    /// The start of the reduction.
    MUNCH_HD static float identity() { return positive_infinity(); }
    /// What the input reads as outside its bounds.
    MUNCH_HD static float padding() { return positive_infinity(); }
    /// The tap that changes nothing: x - (-inf) = +inf never lowers a minimum.
    MUNCH_HD static float neutral_tap() { return -positive_infinity(); }
    /// Keeps the smaller of the running minimum and x - h.
    MUNCH_HD static float combine(float acc, float x, float h) { return smaller(acc, x - h); }
    /// Joins two partial results (of two filter chunks).
    MUNCH_HD static float merge(float a, float b) { return smaller(a, b); }
};

/// The maximum of sums: one term of a dilation by a non-flat structuring element.
struct Dilate {
    /// Name of the operation in variant names and result files.
    static constexpr const char* name = "dilate";
    /// The start of the reduction.
    MUNCH_HD static float identity() { return -positive_infinity(); }
    /// What the input reads as outside its bounds.
    MUNCH_HD static float padding() { return -positive_infinity(); }
    /// The tap that changes nothing: x + (-inf) = -inf never raises a maximum.
    MUNCH_HD static float neutral_tap() { return -positive_infinity(); }
    /// Keeps the larger of the running maximum and x + h.
    MUNCH_HD static float combine(float acc, float x, float h) { return larger(acc, x + h); }
    /// Joins two partial results (of two filter chunks).
    MUNCH_HD static float merge(float a, float b) { return larger(a, b); }
};

// [operations-end]

/// The input at index @p j (any integer), or @p Op's padding outside [0, n).
template <class Op>
MUNCH_HD float padded_at(const float* x, long long n, long long j) {
    return (j >= 0 && j < n) ? x[j] : Op::padding();
}

// [window-output-begin]
/// One output of the window form: reduce over k of combine(x[i - shift + k], h[k]).
template <class Op>
MUNCH_HD float window_output(const float* x, long long n, const float* h, long long w, long long shift, long long i) {
    float acc = Op::identity();
    for (long long k = 0; k < w; ++k) acc = Op::combine(acc, padded_at<Op>(x, n, i - shift + k), h[k]);
    return acc;
}
// [window-output-end]

}  // namespace munch
