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

/// Chunks of the second set per block column that give a split launch of @p grid_x block columns over @p nb
/// points about two waves of @p resident blocks: the chunk length in points, a multiple of tpacf_block.
int split_chunk(int grid_x, int nb, int resident) {
    const int tiles = (nb + tpacf_block - 1) / tpacf_block;
    const int rows = std::clamp((2 * resident + grid_x - 1) / grid_x, 1, std::max(tiles, 1));
    return (tiles + rows - 1) / rows * tpacf_block;
}

/// The registry entry of the TPACF kernel with histograms @p Hist, edges @p Edges and grid @p Grid (@p g80:
/// the G80's shared-memory capacity imposed).
template <class Hist, class Edges, class Grid = WholeSet>
TpacfVariant tpacf_variant(const std::string& name, const std::string& summary, bool g80) {
    TpacfVariant v;
    v.name = name;
    v.summary = summary;
    v.subhistograms = Hist::count;
    v.g80_blocks_per_sm = g80 ? -1 : 0;  // resolved on the device by prepare
    v.prepare = [name, g80] {
        const void* f = reinterpret_cast<const void*>(&ryoo_tpacf<Hist, Edges, Grid>);
        int blocks = 0;
        if (g80) {
            blocks = g80_blocks(f);
            if (blocks == 0)
                throw std::runtime_error(name + ": one block's shared memory exceeds the G80's 16 KB per SM");
        }
        const std::size_t ballast = residency_ballast(f, tpacf_block, blocks);
        int resident = 0;  // blocks the whole GPU holds at once (used by the split grid only)
        if constexpr (Grid::split) {
            int device = 0, sms = 0, per_sm = 0;
            harness::check(cudaGetDevice(&device), "read the current device");
            harness::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "read the SM count");
            harness::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, tpacf_block, ballast), "compute the occupancy");
            resident = sms * std::max(per_sm, 1);
        }
        TpacfLaunch l;
        l.facts = {f, tpacf_block, ballast, blocks};
        l.run = [ballast, resident](const float4* a, int na, const float4* b, int nb, bool self, unsigned long long* h, cudaStream_t s) {
            if (na <= 0 || nb <= 0) return;
            const int grid_x = (na + tpacf_block - 1) / tpacf_block;
            const int chunk = Grid::split ? split_chunk(grid_x, nb, resident) : nb;
            const dim3 grid(grid_x, Grid::split ? (nb + chunk - 1) / chunk : 1);
            ryoo_tpacf<Hist, Edges, Grid><<<grid, tpacf_block, ballast, s>>>(a, na, b, nb, self ? 1 : 0, chunk, h);
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
    // The split grid: the same kernels with the second set divided among block rows, so that the launch fills
    // the GPU however few points the first set has.
    r.add(tpacf_variant<SubHistograms<32>, ConstantEdges, SplitSet>(
        "tpacf-sub32-split", "32 sub-histograms per block, edges in constant memory, the second set split among block rows", false));
    r.add(tpacf_variant<WarpAggregated, SharedEdges, SplitSet>(
        "tpacf-warp-aggregated-split",
        "one histogram per warp with warp-aggregated atomics, edges in shared memory, the second set split among block rows", false));
}

}  // namespace ryoo
