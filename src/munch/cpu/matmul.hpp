/// @file matmul.hpp
/// @brief The thesis's chapter 3 on the CPU: square single-precision matrix products C = A B in row-major
/// order, its sequential ikj loop (Algorithm 1) and the same loop with the rows shared among OpenMP
/// threads (Algorithm 2); the double-precision reference and the error bound every product is checked with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace munch::cpu {

/// Algorithm 1: for i, for k, r = A[i][k], for j: C[i][j] += r B[k][j] (float, one thread). @p c is resized
/// to n x n and zeroed first. A and B are n x n, row-major.
void matmul_ikj(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, std::size_t n);

/// Algorithm 2: the same loop with its outer (i) loop split statically among @p threads OpenMP threads;
/// each row of C is written by one thread, so the result equals Algorithm 1's bit for bit.
void matmul_openmp(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c, std::size_t n,
                   int threads);

/// The test matrices: n x n values in [-1, 1) from a fixed 64-bit generator seeded with @p seed (the same
/// values on every platform).
std::vector<float> matmul_input(std::size_t n, std::uint64_t seed);

/// The outcome of checking a float product against the double-precision product.
struct MatmulVerdict {
    bool valid = true;          ///< every checked element within its bound
    double max_ratio = 0;       ///< largest |C - Cref| / bound over the checked elements (<= 1 when valid)
    double max_abs_err = 0;     ///< largest |C - Cref| over the checked elements
    std::size_t rows = 0;       ///< rows of C checked
    std::string checked;        ///< "all", or "R of N rows"
    std::string first_failure;  ///< the first element out of bounds, empty when valid
};

/// The forward error bound of a float dot product of length @p k, in any order of summation, with or
/// without fused multiply-adds: gamma_k = k u / (1 - k u), u = 2^-24, times sum |a||b|.
double gamma_float(std::size_t k);

/// Checks @p c (n x n, float) against the product of @p a and @p b in double precision, element by
/// element: |c_ij - cref_ij| <= gamma_n (|A| |B|)_ij. All rows when n^3 is at most @p budget, else an
/// evenly spread sample of rows (the first and last among them) whose cost n^2 per row fits the budget, at
/// least 8. The reference rows are computed on @p threads OpenMP threads.
MatmulVerdict check_matmul(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                           std::size_t n, int threads, double budget = 2e9);

}  // namespace munch::cpu
