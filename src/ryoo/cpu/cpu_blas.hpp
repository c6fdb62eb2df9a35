/// @file cpu_blas.hpp
/// @brief The optimised CPU BLAS (OpenBLAS) the GPU is compared with, when the build found one.
#pragma once

#include <string>

namespace ryoo {

/// Whether this build links a CPU BLAS.
bool cpu_blas_available();

/// The library's name and version ("OpenBLAS 0.3.21 ..."), or why there is none.
std::string cpu_blas_description();

/// c = a b for n x n row-major matrices with the CPU BLAS on @p threads threads. Throws std::runtime_error
/// when the build has no CPU BLAS.
void cpu_sgemm(const float* a, const float* b, float* c, int n, int threads);

}  // namespace ryoo
