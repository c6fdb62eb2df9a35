/// @file ieee_checks.cuh
/// @brief The body of the IEEE-754 checks, included by four files that nvcc compiles with different
/// floating-point flags (kernels/munch/CMakeLists.txt). Everything here has internal linkage, so the four
/// copies of the kernel stay four kernels.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "munch/device_buffer.hpp"
#include "munch/ieee.hpp"

namespace {

/// The four operations on element i, as written (the file's flags decide contraction, flushing, accuracy).
__global__ void ieee_kernel(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                            const float* __restrict__ denormal, float* quotient, float* root, float* muladd,
                            float* scaled, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        quotient[i] = a[i] / b[i];
        root[i] = sqrtf(fabsf(a[i]));
        muladd[i] = a[i] * b[i] + c[i];
        scaled[i] = denormal[i] * 0.75f;
    }
}

/// Uploads @p in, runs the kernel of this file and downloads what it computed.
munch::gpu::IeeeOutputs run_ieee_checks(const munch::gpu::IeeeInputs& in) {
    using munch::gpu::DeviceFloats;
    const int n = static_cast<int>(in.a.size());
    harness::DevicePlan plan("munch ieee on " + std::to_string(n) + " operands");
    plan.add<float>("the operands", in.a.size(), 4).add<float>("the results", in.a.size(), 4);
    harness::require_device_memory(plan, -1, "give a smaller --count, or free the device (other processes on it)");
    cudaStream_t stream = nullptr;
    const DeviceFloats a = munch::gpu::uploaded(in.a, stream), b = munch::gpu::uploaded(in.b, stream),
                       c = munch::gpu::uploaded(in.c, stream), d = munch::gpu::uploaded(in.denormal, stream);
    DeviceFloats q(in.a.size()), r(in.a.size()), m(in.a.size()), s(in.a.size());
    ieee_kernel<<<(n + 255) / 256, 256>>>(a.get(), b.get(), c.get(), d.get(), q.get(), r.get(), m.get(), s.get(), n);
    harness::check(cudaGetLastError(), "launch the IEEE checks");
    const auto count = in.a.size();
    return {q.download(count, stream), r.download(count, stream), m.download(count, stream), s.download(count, stream)};
}

}  // namespace
