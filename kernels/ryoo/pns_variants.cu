// The Petri-net simulation with the markings in global memory (the paper's) and in shared memory.
#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/pns.cuh"

namespace ryoo {
namespace {

using namespace kernels;

/// The registry entry of the Petri-net kernel with its marking in @p Where.
template <class Where>
PnsVariant pns_variant(const char* name, const char* summary) {
    PnsVariant v;
    v.name = name;
    v.summary = summary;
    v.facts = [](int edge) {
        const std::size_t smem = Where::shared ? static_cast<std::size_t>(edge) * edge * pns_block : 0;
        return KernelFacts{reinterpret_cast<const void*>(&ryoo_pns<Where>), pns_block, smem, 0};
    };
    v.run = [](int edge, std::uint32_t seed, std::uint32_t steps, std::uint32_t first, std::uint32_t count, std::uint8_t* state,
               std::uint32_t* firings, cudaStream_t s) {
        if (count == 0) return;
        const std::size_t smem = Where::shared ? static_cast<std::size_t>(edge) * edge * pns_block : 0;
        ryoo_pns<Where><<<(count + pns_block - 1) / pns_block, pns_block, smem, s>>>(edge, seed, steps, first, count, state, firings);
        harness::check(cudaGetLastError(), "launch the Petri-net simulation");
    };
    return v;
}

}  // namespace

void add_pns_variants(harness::Registry<PnsVariant>& r) {
    r.add(pns_variant<GlobalMarking>("pns-global", "one trajectory per thread, its marking in global memory (the paper's)"));
    r.add(pns_variant<SharedMarking>("pns-shared", "one trajectory per thread, its marking in shared memory"));
}

}  // namespace ryoo
