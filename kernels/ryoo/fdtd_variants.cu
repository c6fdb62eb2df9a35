// The FDTD variants: the straightforward step (Ey, Ex and Hz each in its own launch) and the step whose two
// electric-field updates share one launch (Hz and the coefficient read once for both).
#include <string>

#include "harness/check.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/fdtd.cuh"

namespace ryoo {

namespace {

using namespace kernels;

/// The grid of 32 x 8 tiles covering the nx x ny cells.
dim3 fdtd_grid(int nx, int ny) { return dim3((nx + fdtd_block_x - 1) / fdtd_block_x, (ny + fdtd_block_y - 1) / fdtd_block_y); }

/// Launches the electric-field kernel for @p Fields.
template <class Fields>
void launch_e(const FdtdDevice& d, cudaStream_t s) {
    ryoo_fdtd_e<Fields><<<fdtd_grid(d.nx, d.ny), dim3(fdtd_block_x, fdtd_block_y), 0, s>>>(d.ex, d.ey, d.ce, d.hz, d.nx, d.ny);
    harness::check(cudaGetLastError(), "launch the FDTD electric-field kernel");
}

/// Launches the magnetic-field kernel.
void launch_h(const FdtdDevice& d, float source, cudaStream_t s) {
    ryoo_fdtd_hz<<<fdtd_grid(d.nx, d.ny), dim3(fdtd_block_x, fdtd_block_y), 0, s>>>(d.hz, d.ch, d.ex, d.ey, d.nx, d.ny, d.source_index,
                                                                                  source);
    harness::check(cudaGetLastError(), "launch the FDTD magnetic-field kernel");
}

/// The facts of the electric-field kernel for @p Fields.
template <class Fields>
KernelFacts e_facts() {
    return {reinterpret_cast<const void*>(&ryoo_fdtd_e<Fields>), fdtd_block_x * fdtd_block_y, 0, 0};
}

}  // namespace

void add_fdtd_variants(harness::Registry<FdtdVariant>& r) {
    FdtdVariant separate;
    separate.name = "fdtd-separate-e";
    separate.summary = "three launches per step: Ey, Ex, Hz (the straightforward kernels)";
    separate.facts = e_facts<EyOnly>;
    separate.step = [](const FdtdDevice& d, float source, cudaStream_t s) {
        launch_e<EyOnly>(d, s);
        launch_e<ExOnly>(d, s);
        launch_h(d, source, s);
    };
    separate.electric = [](const FdtdDevice& d, cudaStream_t s) { launch_e<EyOnly>(d, s); };
    r.add(separate);
    FdtdVariant fused;
    fused.name = "fdtd-fused-e";
    fused.summary = "two launches per step: Ex and Ey together (Hz and the coefficient read once), then Hz";
    fused.facts = e_facts<BothE>;
    fused.step = [](const FdtdDevice& d, float source, cudaStream_t s) {
        launch_e<BothE>(d, s);
        launch_h(d, source, s);
    };
    fused.electric = [](const FdtdDevice& d, cudaStream_t s) { launch_e<BothE>(d, s); };
    r.add(fused);
}

}  // namespace ryoo
