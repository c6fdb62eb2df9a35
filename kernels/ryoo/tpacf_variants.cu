// The TPACF variants: the paper's kernel (edges in constant memory) at several sub-histogram counts, each
// also under the G80's shared-memory capacity (emulated with ballast), and the later kernel (one histogram
// per warp with aggregated atomics, edges in shared memory).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/residency.hpp"
#include "ryoo/tpacf.cuh"

namespace ryoo {

namespace {

using namespace kernels;

/// The G80's shared memory per SM [bytes] (the paper's §3).
constexpr int g80_shared_per_sm = 16384;
/// The G80's resident threads per SM.
constexpr int g80_threads_per_sm = 768;
/// The G80's resident blocks per SM.
constexpr int g80_blocks_per_sm = 8;

/// Blocks of @p kernel's shared memory that fit the G80's SM (at most its thread and block limits); 0 when
/// one block does not fit.
int g80_blocks(const void* kernel) {
    cudaFuncAttributes attributes{};
    harness::check(cudaFuncGetAttributes(&attributes, kernel), "read the kernel's attributes");
    const int by_memory = g80_shared_per_sm / static_cast<int>(std::max<std::size_t>(attributes.sharedSizeBytes, 1));
    return std::min({by_memory, g80_threads_per_sm / tpacf_block, g80_blocks_per_sm});
}

/// The registry entry of the TPACF kernel with histograms @p Hist and edges @p Edges (@p g80: the G80's
/// shared-memory capacity imposed).
template <class Hist, class Edges>
TpacfVariant tpacf_variant(const std::string& name, const std::string& summary, bool g80) {
    TpacfVariant v;
    v.name = name;
    v.summary = summary;
    v.subhistograms = Hist::count;
    v.g80_blocks_per_sm = g80 ? -1 : 0;  // resolved on the device by prepare
    v.prepare = [name, g80] {
        const void* f = reinterpret_cast<const void*>(&ryoo_tpacf<Hist, Edges>);
        int blocks = 0;
        if (g80) {
            blocks = g80_blocks(f);
            if (blocks == 0)
                throw std::runtime_error(name + ": one block's shared memory exceeds the G80's 16 KB per SM");
        }
        const std::size_t ballast = residency_ballast(f, tpacf_block, blocks);
        TpacfLaunch l;
        l.facts = {f, tpacf_block, ballast, blocks};
        l.run = [ballast](const float4* a, int na, const float4* b, int nb, bool self, unsigned long long* h, cudaStream_t s) {
            if (na <= 0 || nb <= 0) return;
            ryoo_tpacf<Hist, Edges><<<(na + tpacf_block - 1) / tpacf_block, tpacf_block, ballast, s>>>(a, na, b, nb, self ? 1 : 0, h);
            harness::check(cudaGetLastError(), "launch the TPACF kernel");
        };
        return l;
    };
    return v;
}

/// Registers the @p H sub-histogram kernel, free and under the G80's capacity.
template <int H>
void add_subhistogram_pair(harness::Registry<TpacfVariant>& r) {
    const std::string base = "tpacf-sub" + std::to_string(H);
    const std::string what = std::to_string(H) + " sub-histogram(s) per block, edges in constant memory";
    r.add(tpacf_variant<SubHistograms<H>, ConstantEdges>(base, what, false));
    r.add(tpacf_variant<SubHistograms<H>, ConstantEdges>(base + "-g80", what + ", the G80's 16 KB of shared memory per SM imposed", true));
}

}  // namespace

void set_tpacf_edges(const std::vector<float>& cosines) {
    if (cosines.empty() || cosines.size() > static_cast<std::size_t>(tpacf_max_slots - 1))
        throw std::invalid_argument("TPACF: " + std::to_string(cosines.size()) + " bin edges; expected 1 to " +
                                    std::to_string(tpacf_max_slots - 1));
    harness::check(cudaMemcpyToSymbol(ryoo_tpacf_edges, cosines.data(), cosines.size() * sizeof(float)), "upload the bin edges");
    const int count = static_cast<int>(cosines.size());
    harness::check(cudaMemcpyToSymbol(ryoo_tpacf_edge_count, &count, sizeof count), "upload the bin-edge count");
}

void add_tpacf_variants(harness::Registry<TpacfVariant>& r) {
    add_subhistogram_pair<1>(r);
    add_subhistogram_pair<4>(r);
    add_subhistogram_pair<8>(r);
    add_subhistogram_pair<16>(r);
    add_subhistogram_pair<32>(r);
    add_subhistogram_pair<64>(r);
    r.add(tpacf_variant<SubHistograms<256>, ConstantEdges>("tpacf-sub256", "one sub-histogram per thread, edges in constant memory", false));
    r.add(tpacf_variant<WarpAggregated, SharedEdges>("tpacf-warp-aggregated",
                                                     "one histogram per warp with warp-aggregated atomics, edges in shared memory", false));
}

}  // namespace ryoo
