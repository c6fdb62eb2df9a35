/// @file elimination.hpp
/// @brief SAXPY as the paper used it: HPL's single-precision saxpy called by an unblocked Gaussian
/// elimination, on one CPU thread; the system it solves and the checks of its solution.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ryoo {

/// A linear system A x = b stored as the n x (n + 1) row-major matrix [A | b] with leading dimension ld
/// (a multiple of 32 floats, so that every row starts 128-byte aligned).
struct LinearSystem {
    int n = 0;              ///< unknowns
    int ld = 0;             ///< floats between rows (>= n + 1)
    std::vector<float> a;   ///< n rows of ld floats; column n holds b
    /// Element (@p i, @p j) (j = n: b_i).
    float& at(int i, int j) { return a[static_cast<std::size_t>(i) * ld + j]; }
    /// Element (@p i, @p j) of a constant system.
    float at(int i, int j) const { return a[static_cast<std::size_t>(i) * ld + j]; }
};

/// A diagonally dominant system (so that elimination needs no pivoting): off-diagonal entries uniform in
/// [-1, 1) from @p seed, the diagonal that plus n, and b = A times a vector of ones, rounded once from
/// double. Throws std::invalid_argument for n < 2 or n > 32768.
LinearSystem dominant_system(int n, std::uint64_t seed);

/// y[i] <- alpha x[i] + y[i] for i < count, one rounding per element (point_math.hpp's saxpy_element).
void saxpy_cpu(std::size_t count, float alpha, const float* x, float* y);

/// Gaussian elimination without pivoting, in place: for each pivot row k, each row i > k gets
/// a[i][k+1..n] -= (a[i][k] / a[k][k]) a[k][k+1..n] by one call of saxpy_cpu. Column k below the diagonal
/// is left as it was (the back substitution reads only the upper triangle and b).
void eliminate_cpu(LinearSystem& s);

/// The solution of an eliminated system by back substitution (single precision, fused multiply-adds).
std::vector<float> back_substitute(const LinearSystem& eliminated);

/// HPL's scaled residual ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n), in double, with eps
/// the single-precision unit roundoff 2^-24; HPL accepts a solution when it is below 16.
double scaled_residual(const LinearSystem& original, const std::vector<float>& x);

}  // namespace ryoo
