/// @file ieee.hpp
/// @brief The IEEE-754 checks: the same float operations compiled four ways (nvcc's defaults,
/// -ftz=true, -fmad=false, -use_fast_math), run on the same inputs, for comparison with the CPU.
#pragma once

#include <string>
#include <vector>

namespace munch::gpu {

/// The inputs: operands of a division, a square root, a multiply-add and a scaling of denormals.
struct IeeeInputs {
    std::vector<float> a;         ///< dividends, radicands, first factors
    std::vector<float> b;         ///< divisors, second factors
    std::vector<float> c;         ///< addends
    std::vector<float> denormal;  ///< denormal numbers, to be scaled by 0.75
};

/// What the GPU computed for each input.
struct IeeeOutputs {
    std::vector<float> quotient;  ///< a / b
    std::vector<float> root;      ///< sqrtf(|a|)
    std::vector<float> muladd;    ///< a * b + c as written (contracted into an FMA where the build allows)
    std::vector<float> scaled;    ///< denormal * 0.75
};

/// One way the checks were compiled.
struct IeeeBuild {
    std::string name;   ///< default, flush_to_zero, no_fma, fast_math
    std::string flags;  ///< the nvcc flags of that file
    IeeeOutputs (*run)(const IeeeInputs&);  ///< runs the checks compiled so
};

/// The four builds.
std::vector<IeeeBuild> ieee_builds();

/// @cond INTERNAL
IeeeOutputs ieee_run_default(const IeeeInputs&);
IeeeOutputs ieee_run_flush_to_zero(const IeeeInputs&);
IeeeOutputs ieee_run_no_fma(const IeeeInputs&);
IeeeOutputs ieee_run_fast_math(const IeeeInputs&);
/// @endcond

}  // namespace munch::gpu
