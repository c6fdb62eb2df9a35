/// @file hd.hpp
/// @brief Portability macro that lets one inline function compile for the host and for CUDA devices.
#pragma once

#if defined(__CUDACC__)
/// Marks a function callable from host code and from CUDA kernels.
#define MWSEP_HD __host__ __device__ __forceinline__
#else
/// Marks a function callable from host code and from CUDA kernels (host build: plain inline).
#define MWSEP_HD inline
#endif
