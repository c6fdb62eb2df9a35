// The elimination steps that call SAXPY, one variant per mapping of the row SAXPYs to threads.
#include <type_traits>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/elimination.cuh"

namespace ryoo {
namespace {

using namespace kernels;

/// The registry entry of the elimination kernel with thread mapping @p Mapping.
template <class Mapping>
EliminationVariant elimination_variant(const char* name, const char* summary) {
    EliminationVariant v;
    v.name = name;
    v.summary = summary;
    v.facts = [] {
        return KernelFacts{reinterpret_cast<const void*>(&ryoo_elimination_step<Mapping>),
                           Mapping::threads_x * Mapping::threads_y, 0, 0};
    };
    v.step = [](float* a, int n, int ld, int k, cudaStream_t s) {
        const int rows = n - k - 1, cols = n - k;  // rows k+1 .. n-1, columns k+1 .. n
        if (rows <= 0) return;
        if constexpr (Mapping::threads_y == 1) {
            ryoo_elimination_step<Mapping><<<rows, Mapping::threads_x, 0, s>>>(a, n, ld, k);
        } else {
            const int per_block = Mapping::threads_y * Mapping::rows_per_thread;
            const dim3 grid((cols + Mapping::threads_x - 1) / Mapping::threads_x, (rows + per_block - 1) / per_block);
            ryoo_elimination_step<Mapping><<<grid, dim3(Mapping::threads_x, Mapping::threads_y), 0, s>>>(a, n, ld, k);
        }
        harness::check(cudaGetLastError(), "launch an elimination step");
    };
    return v;
}

}  // namespace

void add_elimination_variants(harness::Registry<EliminationVariant>& r) {
    r.add(elimination_variant<RowBlocks>("ge-row-blocks", "one block of 256 threads per row SAXPY (the library call per row)"));
    r.add(elimination_variant<ColumnTiles>("ge-column-tiles",
                                           "32 x 8 threads, each updating 4 rows of one column with the pivot element in a register"));
}

}  // namespace ryoo
