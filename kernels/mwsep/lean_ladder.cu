/// @file lean_ladder.cu
/// @brief The lean variants between modern-f64 and those of lean.cu, one policy added at a time (each
/// change measured on its own by the `modern` experiment), and the combinations that did not pay.
#include "lean_kernel.cuh"

namespace mwsep::cuda {

void add_lean_ladder_variants(std::vector<ModernVariant>& out) {
    using kernels::LeanExp;
    using kernels::LeanPolicy;
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table, 1, false>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::biased, 1, false>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, 1, false>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, lean_groups, false>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, lean_groups, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, lean_groups, true, 1>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::biased, lean_groups, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, 1, false, 4, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, lean_groups, true, 4, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::biased, lean_groups, true, 4, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, lean_groups, true, 4, false, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, 1, false, 5, false, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, lean_groups, true, 5, true, true>>());
}

}  // namespace mwsep::cuda
