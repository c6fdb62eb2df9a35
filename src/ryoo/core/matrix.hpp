/// @file matrix.hpp
/// @brief The study's inputs: square single-precision matrices filled from a fixed seed, row-major.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ryoo {

/// A square n x n single-precision matrix, row-major (element (i, j) at i * n + j), as the paper's
/// naive kernel indexes it.
struct Matrix {
    int n = 0;                ///< rows and columns
    std::vector<float> data;  ///< n * n values, row after row

    /// Element (@p i, @p j).
    float at(int i, int j) const { return data[static_cast<std::size_t>(i) * n + j]; }
};

/// An n x n matrix with entries uniform in [-1, 1) from @p seed (splitmix64; each entry is a multiple of
/// 2^-23, so it is exact in single precision). The same seed gives the same matrix on every machine.
/// Throws std::invalid_argument for n < 1 or n > 65536.
Matrix random_matrix(int n, std::uint64_t seed);

/// A vector of @p count values uniform in [-1, 1) from @p seed, drawn like random_matrix's entries.
std::vector<float> random_vector(std::size_t count, std::uint64_t seed);

/// Copies @p m into an @p padded x @p padded matrix with zeros beyond row and column n - 1 (padding a
/// product with zeros leaves its top-left n x n block unchanged). Throws std::invalid_argument when
/// @p padded < m.n.
std::vector<float> padded_copy(const Matrix& m, int padded);

/// The smallest multiple of @p multiple that is at least @p n.
inline int round_up(int n, int multiple) { return (n + multiple - 1) / multiple * multiple; }

}  // namespace ryoo
