// The paper's ladder as named variants: V0, V1 and V2 at four tile sizes, V3, and the register cliff
// emulated through residency (see G80Residency).
#include <stdexcept>
#include <string>
#include <type_traits>

#include "harness/check.hpp"
#include "ryoo/classic_gemm.cuh"
#include "ryoo/residency.hpp"
#include "ryoo/variants.hpp"

namespace ryoo {
namespace {

using namespace kernels;
using harness::check;

/// The name of the inner-loop policy in a variant's name.
template <class Loop> constexpr const char* loop_name() { return std::is_same_v<Loop, RolledLoop> ? "tiled" : "unrolled"; }

/// The variant of the tiled kernel with these policies; its name is composed from them.
template <class TileP, class Loop, class Load, class Residency>
GemmVariant tiled_variant(const std::string& step, const std::string& summary) {
    constexpr int T = TileP::size;
    std::string name = std::is_same_v<Load, PrefetchLoad> ? std::string("prefetch") : std::string(loop_name<Loop>());
    name += "-" + std::to_string(T);
    if (Residency::blocks_per_sm) name += "-g80-" + std::to_string(Residency::blocks_per_sm) + "blocks";
    GemmVariant v;
    v.name = name;
    v.step = step;
    v.summary = summary;
    v.multiple = T;
    v.prepare = [] {
        const void* f = reinterpret_cast<const void*>(&ryoo_tiled_gemm<TileP, Loop, Load, Residency>);
        const std::size_t ballast = residency_ballast(f, T * T, Residency::blocks_per_sm);
        GemmLaunch l;
        l.facts = {f, T * T, ballast, Residency::blocks_per_sm};
        l.run = [ballast](const float* a, const float* b, float* c, int n, cudaStream_t s) {
            const dim3 grid(n / T, n / T), block(T, T);
            ryoo_tiled_gemm<TileP, Loop, Load, Residency><<<grid, block, ballast, s>>>(a, b, c, n);
            check(cudaGetLastError(), "launch the tiled matrix multiplication");
        };
        return l;
    };
    return v;
}

}  // namespace

void add_classic_variants(harness::Registry<GemmVariant>& r) {
    GemmVariant naive;
    naive.name = "naive";
    naive.step = "V0";
    naive.summary = "one thread per element of C, operands from global memory, 16 x 16 blocks";
    naive.multiple = 16;
    naive.prepare = [] {
        GemmLaunch l;
        l.facts = {reinterpret_cast<const void*>(&ryoo_naive_gemm), 256, 0, 0};
        l.run = [](const float* a, const float* b, float* c, int n, cudaStream_t s) {
            ryoo_naive_gemm<<<dim3(n / 16, n / 16), dim3(16, 16), 0, s>>>(a, b, c, n);
            check(cudaGetLastError(), "launch the naive matrix multiplication");
        };
        return l;
    };
    r.add(naive);
    const char* v1 = "tiles of A and B through shared memory, inner loop rolled";
    const char* v2 = "V1 with the inner loop over the tile completely unrolled";
    r.add(tiled_variant<Tile<4>, RolledLoop, DirectLoad, FreeResidency>("V1", v1));
    r.add(tiled_variant<Tile<8>, RolledLoop, DirectLoad, FreeResidency>("V1", v1));
    r.add(tiled_variant<Tile<12>, RolledLoop, DirectLoad, FreeResidency>("V1", v1));
    r.add(tiled_variant<Tile<16>, RolledLoop, DirectLoad, FreeResidency>("V1", v1));
    r.add(tiled_variant<Tile<4>, UnrolledLoop, DirectLoad, FreeResidency>("V2", v2));
    r.add(tiled_variant<Tile<8>, UnrolledLoop, DirectLoad, FreeResidency>("V2", v2));
    r.add(tiled_variant<Tile<12>, UnrolledLoop, DirectLoad, FreeResidency>("V2", v2));
    r.add(tiled_variant<Tile<16>, UnrolledLoop, DirectLoad, FreeResidency>("V2", v2));
    r.add(tiled_variant<Tile<16>, UnrolledLoop, PrefetchLoad, FreeResidency>("V3", "V2 with the next tiles prefetched into registers"));
    const char* cliff = "residency of the G80 imposed with shared-memory ballast";
    r.add(tiled_variant<Tile<16>, UnrolledLoop, DirectLoad, G80Residency<3>>("cliff", cliff));
    r.add(tiled_variant<Tile<16>, UnrolledLoop, DirectLoad, G80Residency<2>>("cliff", cliff));
    r.add(tiled_variant<Tile<16>, UnrolledLoop, PrefetchLoad, G80Residency<2>>("cliff", cliff));
    // S1 section 5.2: V2 with and without the elimination of redundant loads and common subexpressions (unrolled-16
    // is V2 as the compiler makes it, with both).
    GemmVariant reload;
    reload.name = "unrolled-16-reload";
    reload.step = "RE14";
    reload.summary = "V2 with the thread and block coordinates read again and every address formed anew for each tile";
    reload.multiple = 16;
    reload.prepare = [] {
        GemmLaunch l;
        const void* f = reinterpret_cast<const void*>(&ryoo_tiled_gemm_reload<Tile<16>, UnrolledLoop>);
        l.facts = {f, 256, 0, 0};
        l.run = [](const float* a, const float* b, float* c, int n, cudaStream_t s) {
            ryoo_tiled_gemm_reload<Tile<16>, UnrolledLoop><<<dim3(n / 16, n / 16), dim3(16, 16), 0, s>>>(a, b, c, n);
            check(cudaGetLastError(), "launch the tiled matrix multiplication without elimination");
        };
        return l;
    };
    r.add(reload);
}

}  // namespace ryoo
