// The LBM variants: the array of structures read directly (the original's layout), the same staged through
// shared memory (the paper's Figure 5 fix) and the structure of arrays read directly; and the first two again
// under the G80's capacity (16 KB of shared memory, 768 threads and 8 blocks per SM, imposed with ballast), where
// the paper finds LBM bound by its shared-memory capacity.
#include <algorithm>
#include <string>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/lbm.cuh"
#include "ryoo/residency.hpp"

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

/// The G80's shared memory per SM [bytes] (the paper's section 3).
constexpr int g80_shared_per_sm = 16384;
/// The G80's resident threads per SM.
constexpr int g80_threads_per_sm = 768;
/// The G80's resident blocks per SM.
constexpr int g80_blocks_per_sm = 8;

/// The blocks of @p kernel (lbm_block threads each) that the G80's SM holds: its shared memory, threads and blocks.
int g80_lbm_blocks(const void* kernel) {
    cudaFuncAttributes a{};
    harness::check(cudaFuncGetAttributes(&a, kernel), "read the LBM kernel's attributes");
    const int by_memory = g80_shared_per_sm / static_cast<int>(std::max<std::size_t>(a.sharedSizeBytes, 1));
    return std::min({by_memory, g80_threads_per_sm / lbm_block, g80_blocks_per_sm});
}

/// The step with layout @p Layout and loads @p Load under the G80's capacity (ballast: as many resident blocks
/// per SM as the G80's SM holds of this kernel).
template <class Layout, class Load>
LbmVariant lbm_g80_variant(const std::string& name, const std::string& summary) {
    LbmVariant v;
    v.name = name;
    v.summary = summary;
    v.soa = Layout::soa;
    const auto residency = [] {
        const void* f = reinterpret_cast<const void*>(&ryoo_lbm<Layout, Load>);
        const int blocks = g80_lbm_blocks(f);
        return KernelFacts{f, lbm_block, residency_ballast(f, lbm_block, blocks), blocks};
    };
    v.facts = residency;
    v.step = [residency](const float* src, float* dst, const LbmGeometry& g, cudaStream_t s) {
        static const KernelFacts facts = residency();  // the ballast of the current device, worked out once
        const std::size_t cells = static_cast<std::size_t>(g.nx) * g.ny * g.nz;
        const auto blocks = static_cast<unsigned>((cells + lbm_block - 1) / lbm_block);
        ryoo_lbm<Layout, Load><<<blocks, lbm_block, facts.dynamic_smem, s>>>(src, dst, g.flags, g.nx, g.ny, g.nz, g.omega,
                                                                            g.lid_velocity);
        harness::check(cudaGetLastError(), "launch the LBM step under the G80's capacity");
    };
    return v;
}

}  // namespace

void add_lbm_variants(harness::Registry<LbmVariant>& r) {
    r.add(lbm_variant<CellMajor, DirectLoad>("lbm-aos-direct", "array of structures, each thread loads its 19 distributions directly"));
    r.add(lbm_variant<CellMajor, StagedLoad>(
        "lbm-aos-staged", "array of structures, the block's distributions staged through shared memory in contiguous words"));
    r.add(lbm_variant<DirectionMajor, DirectLoad>("lbm-soa-direct", "structure of arrays, each thread loads its 19 distributions directly"));
    r.add(lbm_g80_variant<CellMajor, DirectLoad>("lbm-aos-direct-g80", "lbm-aos-direct under the G80's capacity per SM"));
    r.add(lbm_g80_variant<CellMajor, StagedLoad>("lbm-aos-staged-g80", "lbm-aos-staged under the G80's capacity per SM"));
}

}  // namespace ryoo
