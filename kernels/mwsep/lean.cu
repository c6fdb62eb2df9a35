/// @file lean.cu
/// @brief The lean variants a user runs: modern-rw-exp8-staged-f64 and modern-rw-exp8-sub4log-warp-staged-f64
/// (the fastest on the large units), alone in this translation unit so that the module a one-shot run loads
/// for them is small; the steps towards them are in lean_ladder.cu. The kernel is lean_kernel.cuh's.
#include "lean_kernel.cuh"

namespace mwsep::cuda {

void add_lean_variants(std::vector<ModernVariant>& out) {
    using kernels::LeanExp;
    using kernels::LeanPolicy;
    add_lean_ladder_variants(out);
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, 1, false, 4, false, true>>());
    out.push_back(kernels::describe_lean<LeanPolicy<true, LeanExp::table8, lean_groups, true, 4, true, true>>());
}

}  // namespace mwsep::cuda
