/// @file convolution.hpp
/// @brief The CPU convolutions: the reference (double sums), the thesis's sequential Algorithm 4 as its
/// Listing A.1 writes it, and its OpenMP Algorithm 5 (one loop over the outputs, split among threads).
#pragma once

#include <cstddef>
#include <vector>

namespace munch::cpu {

/// Output length of the full convolution of a signal of length @p n with a filter of width @p w.
inline std::size_t convolution_length(std::size_t n, std::size_t w) { return n + w - 1; }

/// One output of the full convolution P = M * N, summed in double: sum_k M[i-k] N[k].
double convolution_reference_at(const std::vector<float>& signal, const std::vector<float>& filter, std::size_t i);

/// The whole full convolution, summed in double (the reference every variant is checked against).
std::vector<double> convolution_reference(const std::vector<float>& signal, const std::vector<float>& filter);

/// Algorithm 4 as Listing A.1 writes it: the signal copied into a zero-padded array M2, then
/// P[p] = sum_k M2[p+k] N[w-1-k] in float, one thread. @p out is resized to n + w - 1.
void convolution_sequential(const std::vector<float>& signal, const std::vector<float>& filter, std::vector<float>& out);

/// Algorithm 5: the same loop with the outputs shared among @p threads OpenMP threads (a static split of
/// the outer loop, one accumulator per output, as the thesis found fastest).
void convolution_openmp(const std::vector<float>& signal, const std::vector<float>& filter, std::vector<float>& out,
                        int threads);

}  // namespace munch::cpu
