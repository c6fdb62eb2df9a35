/// @file tidal_streams.hpp
/// @brief The constants of the tidal streams as every kernel receives them, and the size of their table,
/// stated once for the kernels, their launchers and the likelihood kernel.
#pragma once

#include <cuda_runtime.h>

#include "mwsep/math/constants.hpp"

namespace mwsep::cuda {

/// Most streams a kernel handles (the thesis's limit; the CPU handles any number).
inline constexpr int max_streams = constants::max_gpu_streams;
/// Values per stream in the stream table: centre x, y, z then axis x, y, z.
inline constexpr int stream_stride = 6;
/// Values in the stream table: centre and axis of each of the most streams a kernel takes.
inline constexpr int stream_table_size = stream_stride * max_streams;

/// The per-evaluation constants of the tidal streams, on the host and (for the thesis's memory families)
/// on the device.
struct TidalStreams {
    /// Number of streams S, at most max_streams.
    int count = 0;
    /// 1 / q^2 of the background.
    double q_inv_sq = 1;
    /// Background core radius r_0 [kpc].
    double r0 = 1;
    /// 1 / (2 sigma_s^2) per stream, for constant memory.
    double inv_two_sigma_sq_f64[max_streams] = {};
    /// The same in single precision.
    float inv_two_sigma_sq_f32[max_streams] = {};
    /// Per stream: centre x, y, z, axis x, y, z.
    double host_f64[stream_table_size] = {};
    /// host_f64 rounded to float.
    float host_f32[stream_table_size] = {};
    /// Device copy of host_f64: read by the global and shared families, viewed by the texture.
    double* global_f64 = nullptr;
    /// Device copy of host_f32.
    float* global_f32 = nullptr;
    /// int2 texels over global_f64, one per double.
    cudaTextureObject_t texture_f64 = 0;
    /// float texels over global_f32.
    cudaTextureObject_t texture_f32 = 0;
    /// Writes each stream's centre and axis (x y z each, 3 per stream) and 1 / (2 sigma^2) into a kernel's
    /// argument arrays, which the modern, lean and compressed kernels read from the constant bank.
    void copy_geometry(double* centre, double* axis, double* inv_two_sigma_sq) const {
        for (int s = 0; s < count; ++s) {
            for (int i = 0; i < 3; ++i) {
                centre[3 * s + i] = host_f64[stream_stride * s + i];
                axis[3 * s + i] = host_f64[stream_stride * s + 3 + i];
            }
            inv_two_sigma_sq[s] = inv_two_sigma_sq_f64[s];
        }
    }
};

}  // namespace mwsep::cuda
