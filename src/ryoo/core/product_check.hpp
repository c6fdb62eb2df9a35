/// @file product_check.hpp
/// @brief The check of every computed product against a double-precision CPU product, with an error bound
/// that holds for any order of summation.
///
/// For C = A B with inner dimension K, any way of summing the K products in floating point with unit
/// roundoff u (fused multiply-adds included) gives |C_ij - (AB)_ij| <= gamma_K (|A||B|)_ij, where
/// gamma_K = K u / (1 - K u) (Higham, Accuracy and Stability of Numerical Algorithms, §3.1 and §3.5). A
/// kernel that rounds its inputs first (TF32 tensor cores keep 10 of the 23 fraction bits) adds
/// (2 v + v^2) (|A||B|)_ij for input unit roundoff v. The reference is itself computed in double
/// precision, whose own error (gamma_K with u = 2^-53) is added to the bound, so the check is rigorous and
/// never depends on how the kernel orders its sums.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ryoo/core/matrix.hpp"

namespace ryoo {

/// Unit roundoff of IEEE single precision, round to nearest.
inline constexpr double single_unit_roundoff = 0x1p-24;
/// Unit roundoff of IEEE double precision, round to nearest.
inline constexpr double double_unit_roundoff = 0x1p-53;
/// The most a TF32 conversion can change a value, relative: 10 fraction bits, rounding or truncating.
inline constexpr double tf32_input_roundoff = 0x1p-10;

/// gamma_k = k u / (1 - k u), the relative bound of a k-term floating-point sum or dot product with unit
/// roundoff @p u. Throws std::invalid_argument when k u >= 1 (no bound exists).
double gamma(long long k, double u);

/// The bound factor of one element: the admissible |C_ij - reference_ij| divided by (|A||B|)_ij for inner
/// dimension @p k, accumulation unit roundoff @p u and input unit roundoff @p input_u (0 for inputs used as
/// stored).
double bound_factor(long long k, double u, double input_u);

/// The outcome of checking one product.
struct CheckResult {
    long long checked = 0;    ///< elements compared
    long long failed = 0;     ///< elements whose error exceeded their bound (or that were not finite)
    double worst_ratio = 0;   ///< the largest error / bound over the checked elements (< 1: all pass)
    int worst_i = -1;         ///< row of that element
    int worst_j = -1;         ///< column of that element
    double worst_error = 0;   ///< its |C_ij - reference_ij|
    double worst_bound = 0;   ///< its bound
    /// True when every checked element was within its bound.
    bool pass() const { return checked > 0 && failed == 0; }
    /// One line for logs: elements, failures and the worst element.
    std::string describe() const;
};

/// The double-precision reference of a product A B at a fixed set of elements: every element when n * n
/// is at most the sample size, otherwise a sample drawn from a seed (always with the four corners), so
/// that checking a 4096 x 4096 product costs well under a second.
class ProductReference {
public:
    /// Computes the reference values and magnitudes (|A||B|)_ij of the chosen elements. Throws
    /// std::invalid_argument for matrices of different sizes or a sample size below 4.
    ProductReference(const Matrix& a, const Matrix& b, long long sample_size = 65536, std::uint64_t seed = 7);

    /// Checks @p c (row-major, leading dimension @p ldc >= n) computed with accumulation unit roundoff
    /// @p u and input unit roundoff @p input_u.
    CheckResult check(const float* c, int ldc, double u = single_unit_roundoff, double input_u = 0) const;

    /// The size of the product.
    int n() const { return n_; }
    /// How many elements are compared.
    long long size() const { return static_cast<long long>(rows_.size()); }

private:
    int n_;
    std::vector<int> rows_, cols_;
    std::vector<double> value_, magnitude_;
};

}  // namespace ryoo
