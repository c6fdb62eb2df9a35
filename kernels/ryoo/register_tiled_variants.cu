// The steps after 2008 as named variants of the register-tiled kernel; each adds one policy to the one
// before it: M1 scalar loads, M2 128-bit loads, M3 two shared-memory stages, M4 warp tiling.
#include <string>
#include <type_traits>

#include "harness/check.hpp"
#include "ryoo/register_tiled_gemm.cuh"
#include "ryoo/variants.hpp"

namespace ryoo {
namespace {

using namespace kernels;

/// The variant of the register-tiled kernel with these policies; its name is composed from them.
template <class Load, class Buffers, class Layout>
GemmVariant register_tiled(const std::string& step, const std::string& summary) {
    GemmVariant v;
    v.name = std::string("register-tiled-") + (std::is_same_v<Load, VectorLoad> ? "vector" : "scalar") +
             (std::is_same_v<Buffers, DoubleBuffer> ? "-double" : "") + (std::is_same_v<Layout, WarpLayout> ? "-warp" : "");
    v.step = step;
    v.summary = summary;
    v.multiple = BlockTile::m;
    v.prepare = [] {
        GemmLaunch l;
        l.facts = {reinterpret_cast<const void*>(&ryoo_register_tiled_gemm<Load, Buffers, Layout>), BlockTile::threads, 0, 0};
        l.run = [](const float* a, const float* b, float* c, int n, cudaStream_t s) {
            const dim3 grid(n / BlockTile::n, n / BlockTile::m);
            ryoo_register_tiled_gemm<Load, Buffers, Layout><<<grid, BlockTile::threads, 0, s>>>(a, b, c, n);
            harness::check(cudaGetLastError(), "launch the register-tiled matrix multiplication");
        };
        return l;
    };
    return v;
}

}  // namespace

void add_register_tiled_variants(harness::Registry<GemmVariant>& r) {
    r.add(register_tiled<ScalarLoad, SingleBuffer, BlockLayout>(
        "M1", "each thread keeps an 8 x 8 block of C in registers; 128 x 128 x 8 block tiles"));
    r.add(register_tiled<VectorLoad, SingleBuffer, BlockLayout>("M2", "M1 with 128-bit global loads"));
    r.add(register_tiled<VectorLoad, DoubleBuffer, BlockLayout>(
        "M3", "M2 with two shared-memory stages (loads overlap the arithmetic, one barrier per step)"));
    r.add(register_tiled<VectorLoad, DoubleBuffer, WarpLayout>("M4", "M3 with threads laid out in 64 x 32 warp tiles"));
}

}  // namespace ryoo
