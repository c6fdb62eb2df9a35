// The FEM stand-in's variants: the node-centred gather on the mesh as generated (node numbers shuffled, so a
// warp's gathers of u scatter over the whole array) and on the same mesh renumbered in the grid's row order
// (neighbours' numbers close to the node's, so a warp's gathers share cache lines).
#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/fem.cuh"

namespace ryoo {

namespace {

using namespace kernels;

/// Launches one step of every node of @p d from @p u into @p u_next.
void launch_step(const FemDevice& d, const float* u, float* u_next, cudaStream_t s) {
    ryoo_fem_step<<<(d.nodes + fem_block - 1) / fem_block, fem_block, 0, s>>>(d.row_start, d.column, d.value, d.step_weight, u, d.v, u_next,
                                                                            d.dt, d.nodes);
    harness::check(cudaGetLastError(), "launch the FEM step kernel");
}

/// The facts of the step kernel.
KernelFacts step_facts() { return {reinterpret_cast<const void*>(&ryoo_fem_step), fem_block, 0, 0}; }

}  // namespace

void add_fem_variants(harness::Registry<FemVariant>& r) {
    FemVariant shuffled;
    shuffled.name = "fem-csr-shuffled";
    shuffled.summary = "node-centred CSR gather on the mesh as numbered (shuffled nodes: scattered gathers)";
    shuffled.row_ordered = false;
    shuffled.facts = step_facts;
    shuffled.step = launch_step;
    r.add(shuffled);
    FemVariant ordered;
    ordered.name = "fem-csr-rowordered";
    ordered.summary = "the same gather on the mesh renumbered in the grid's row order (neighbouring nodes, nearby numbers)";
    ordered.row_ordered = true;
    ordered.facts = step_facts;
    ordered.step = launch_step;
    r.add(ordered);
}

}  // namespace ryoo
