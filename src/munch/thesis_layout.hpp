/// @file thesis_layout.hpp
/// @brief The array sizes, grids and launch counts of the thesis's GPU convolution and rolling ball
/// (Listings A.3/A.4 and A.7/A.8), as its profiler logs (Tables 4.1 and 5.1) record them. The kernels
/// allocate and launch exactly this, so the byte counts of those logs are reproduced, not just timings.
#pragma once

#include <cstddef>

namespace munch::thesis {

/// Threads per block and filter taps per launch.
inline constexpr std::size_t block = 384;
/// The extra zeros after every padded array (`last_loop_offset`, two blocks).
inline constexpr std::size_t last_loop_offset = 2 * block;

/// Launches per pass: one per chunk of 384 taps.
constexpr std::size_t launches(std::size_t w) { return (w + block - 1) / block; }

/// Convolution: outputs of the full convolution.
constexpr std::size_t conv_outputs(std::size_t n, std::size_t w) { return n + w - 1; }
/// Convolution: blocks of the grid, floor(outputs / 384) + 1.
constexpr std::size_t conv_blocks(std::size_t n, std::size_t w) { return conv_outputs(n, w) / block + 1; }
/// Convolution: the padded signal M_apron, (w - 1) zeros, the signal, (w - 1) zeros and the offset.
constexpr std::size_t conv_apron(std::size_t n, std::size_t w) { return n + 2 * (w - 1) + last_loop_offset; }
/// Convolution: the output array P as allocated (the outputs and the offset).
constexpr std::size_t conv_output_array(std::size_t n, std::size_t w) { return conv_outputs(n, w) + last_loop_offset; }

/// Rolling ball: blocks of the grid, floor(n / 384) + 1 (only the n kept outputs).
constexpr std::size_t rb_blocks(std::size_t n) { return n / block + 1; }
/// Rolling ball: the padded signal and the helper R, n + w - 1 values and the offset.
constexpr std::size_t rb_apron(std::size_t n, std::size_t w) { return n + w - 1 + last_loop_offset; }
/// Rolling ball: the result array P, n values and the offset.
constexpr std::size_t rb_output_array(std::size_t n) { return n + last_loop_offset; }

}  // namespace munch::thesis
