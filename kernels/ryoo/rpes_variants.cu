// The RPES variants: the straightforward kernel (kets and the fit table read where they lie: global and
// constant memory) and the kernels that stage the kets, the table, or both in shared memory.
#include <stdexcept>
#include <string>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/rpes.cuh"

namespace ryoo {
namespace {

using namespace kernels;

/// The registry entry of the RPES kernel with kets @p Kets and table @p Table.
template <class Kets, class Table>
RpesVariant rpes_variant(const char* name, const char* summary) {
    RpesVariant v;
    v.name = name;
    v.summary = summary;
    v.facts = [] { return KernelFacts{reinterpret_cast<const void*>(&ryoo_rpes<Kets, Table>), rpes_block, 0, 0}; };
    v.run = [](const float4* geometry, const float* k, const float* kd, int m, float* j, cudaStream_t s) {
        if (m <= 0) return;
        harness::check(cudaMemsetAsync(j, 0, sizeof(float) * static_cast<std::size_t>(m), s), "clear J");
        const dim3 grid((m + rpes_block - 1) / rpes_block, (m + rpes_chunk - 1) / rpes_chunk);
        ryoo_rpes<Kets, Table><<<grid, rpes_block, 0, s>>>(geometry, k, kd, m, j);
        harness::check(cudaGetLastError(), "launch the RPES kernel");
    };
    return v;
}

}  // namespace

void set_rpes_table(const std::vector<float>& table) {
    if (table.size() != static_cast<std::size_t>(rpes_table_size))
        throw std::invalid_argument("RPES: a fit table of " + std::to_string(table.size()) + " floats; expected " +
                                    std::to_string(rpes_table_size));
    harness::check(cudaMemcpyToSymbol(ryoo_rpes_table, table.data(), table.size() * sizeof(float)), "upload the fit table");
}

void add_rpes_variants(harness::Registry<RpesVariant>& r) {
    r.add(rpes_variant<GlobalKets, ConstantTable>("rpes-kets-global-fit-constant",
                                                  "kets read from global memory, fit table in constant memory (straightforward)"));
    r.add(rpes_variant<SharedKets, ConstantTable>("rpes-kets-shared-fit-constant",
                                                  "kets staged in shared memory, fit table in constant memory"));
    r.add(rpes_variant<GlobalKets, SharedTable>("rpes-kets-global-fit-shared",
                                                "kets read from global memory, fit table copied to shared memory"));
    r.add(rpes_variant<SharedKets, SharedTable>("rpes-kets-shared-fit-shared",
                                                "kets staged in shared memory, fit table copied to shared memory"));
}

}  // namespace ryoo
