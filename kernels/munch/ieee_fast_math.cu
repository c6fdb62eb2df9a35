// The IEEE-754 checks compiled with this file's flags (kernels/munch/CMakeLists.txt).
#include "munch/ieee_checks.cuh"

namespace munch::gpu {

IeeeOutputs ieee_run_fast_math(const IeeeInputs& in) { return run_ieee_checks(in); }

}  // namespace munch::gpu
