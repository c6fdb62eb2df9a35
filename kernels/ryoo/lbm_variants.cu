// The LBM variants: the array of structures read directly (the original's layout), the same staged through
// shared memory (the paper's Figure 5 fix) and the structure of arrays read directly.
#include <string>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/lbm.cuh"

namespace ryoo {

namespace {

using namespace kernels;

/// The registry entry of the step with layout @p Layout and loads @p Load.
template <class Layout, class Load>
LbmVariant lbm_variant(const std::string& name, const std::string& summary) {
    LbmVariant v;
    v.name = name;
    v.summary = summary;
    v.soa = Layout::soa;
    v.facts = [] { return KernelFacts{reinterpret_cast<const void*>(&ryoo_lbm<Layout, Load>), lbm_block, 0, 0}; };
    v.step = [](const float* src, float* dst, const LbmGeometry& g, cudaStream_t s) {
        const std::size_t cells = static_cast<std::size_t>(g.nx) * g.ny * g.nz;
        const auto blocks = static_cast<unsigned>((cells + lbm_block - 1) / lbm_block);
        ryoo_lbm<Layout, Load><<<blocks, lbm_block, 0, s>>>(src, dst, g.flags, g.nx, g.ny, g.nz, g.omega, g.lid_velocity);
        harness::check(cudaGetLastError(), "launch the LBM step");
    };
    return v;
}

}  // namespace

void add_lbm_variants(harness::Registry<LbmVariant>& r) {
    r.add(lbm_variant<CellMajor, DirectLoad>("lbm-aos-direct", "array of structures, each thread loads its 19 distributions directly"));
    r.add(lbm_variant<CellMajor, StagedLoad>(
        "lbm-aos-staged", "array of structures, the block's distributions staged through shared memory in contiguous words"));
    r.add(lbm_variant<DirectionMajor, DirectLoad>("lbm-soa-direct", "structure of arrays, each thread loads its 19 distributions directly"));
}

}  // namespace ryoo
