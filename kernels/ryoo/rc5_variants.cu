// The RC5-72 search with the rotation emulated by shifts (the G80) and with the funnel shift (Hopper).
#include <algorithm>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/rc5.cuh"

namespace ryoo {
namespace {

using namespace kernels;

/// The registry entry of the RC5 search with rotation @p Rotate.
template <class Rotate>
Rc5Variant rc5_variant(const char* name, const char* summary) {
    Rc5Variant v;
    v.name = name;
    v.summary = summary;
    v.facts = [] { return KernelFacts{reinterpret_cast<const void*>(&ryoo_rc5_search<Rotate>), rc5_block, 0, 0}; };
    v.run = [](const Rc5Challenge& c, std::uint64_t first, std::uint64_t count, Rc5Found* found, cudaStream_t s) {
        if (count == 0) return;
        // Enough blocks to fill any current GPU several times over; the loop strides over the rest.
        const std::uint64_t blocks = std::min<std::uint64_t>((count + rc5_block - 1) / rc5_block, 1u << 16);
        ryoo_rc5_search<Rotate><<<static_cast<unsigned>(blocks), rc5_block, 0, s>>>(
            c.base_lo, c.base_hi, c.plain[0], c.plain[1], c.cipher[0], c.cipher[1], first, count, &found->first, &found->matches);
        harness::check(cudaGetLastError(), "launch the RC5-72 search");
    };
    return v;
}

}  // namespace

void add_rc5_variants(harness::Registry<Rc5Variant>& r) {
    r.add(rc5_variant<ShiftRotate>("rc5-shift-rotate", "rotation emulated with shl, shr and or (the G80 had no rotate)"));
    r.add(rc5_variant<NativeRotate>("rc5-funnel-shift", "rotation with the funnel shift (__funnelshift_l)"));
}

}  // namespace ryoo
