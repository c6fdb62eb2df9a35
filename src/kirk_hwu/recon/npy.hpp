/// @file npy.hpp
/// @brief Writes a float32, float64, complex128 or int64 array as a NumPy .npy file (format 1.0), wholly or not
/// at all.
#pragma once

#include <complex>
#include <string>
#include <vector>

namespace kirk_hwu::recon {

/// Writes @p values, C order with shape @p shape, to @p path as little-endian float32 (std::runtime_error
/// on failure; the previous file is then left as it was). std::invalid_argument if the shape does not
/// match the count.
void write_npy(const std::string& path, const std::vector<float>& values, const std::vector<std::size_t>& shape);
/// The same as float64.
void write_npy(const std::string& path, const std::vector<double>& values, const std::vector<std::size_t>& shape);
/// The same as complex128.
void write_npy(const std::string& path, const std::vector<std::complex<double>>& values, const std::vector<std::size_t>& shape);
/// The same as int64.
void write_npy(const std::string& path, const std::vector<long long>& values, const std::vector<std::size_t>& shape);

}  // namespace kirk_hwu::recon
