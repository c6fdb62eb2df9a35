// The IEEE-754 checks compiled with this file's flags (kernels/munch/CMakeLists.txt).
#include "munch/ieee_checks.cuh"

namespace munch::gpu {

IeeeOutputs ieee_run_default(const IeeeInputs& in) { return run_ieee_checks(in); }

}  // namespace munch::gpu

namespace munch::gpu {

std::vector<IeeeBuild> ieee_builds() {
    return {{"default", "(nvcc defaults: -ftz=false -prec-div=true -prec-sqrt=true -fmad=true)", ieee_run_default},
            {"flush_to_zero", "-ftz=true", ieee_run_flush_to_zero},
            {"no_fma", "-fmad=false", ieee_run_no_fma},
            {"fast_math", "-use_fast_math", ieee_run_fast_math}};
}

}  // namespace munch::gpu
