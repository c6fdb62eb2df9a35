// `ryoo rpes`: two-electron repulsion integrals of s-type primitives with a one-root Rys quadrature,
// contracted with a pair density (J_ab = sum_cd (ab|cd) D_cd). A synthetic molecule on a lattice; the
// single-thread CPU (single precision, the same fit) over a sample of bra rows (timed when asked); the
// double-precision reference over the same rows; every GPU variant's J on those rows within the stated
// bound of the reference before any timing; then the kernel, the application (pairs built and uploaded,
// the kernel, J downloaded, the energy summed by the host) and the transfers. Rates in Gquartets/s.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/rpes.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

/// "max relative error E of bound B".
std::string error_text(double worst) {
    char text[96];
    std::snprintf(text, sizeof text, "max rel error %.3g of bound %.0e", worst, rpes_row_bound);
    return text;
}

}  // namespace

int command_rpes(const Args& args) {
    AppRun run(args, "ryoo rpes", {{"--edge"}, {"--per-atom"}, {"--spacing"}, {"--cpu-rows"}, {"--seed"}});
    if (run.help()) {
        run.print_help("ryoo rpes [--size small|large] [--edge E] [--per-atom K] [--spacing 2.0] [--cpu-rows N] [--seed 1]\n"
                       "                [shared options]\n"
                       "  two-electron repulsion integrals (ab|cd) of s-type primitive Gaussians (one-root Rys quadrature:\n"
                       "  the weight F0(T) from piecewise polynomial fits, the asymptote beyond) contracted with a positive\n"
                       "  pair density: J_ab = sum over every pair cd of (ab|cd) D_cd. Molecule: E^3 atoms on a lattice\n"
                       "  (spacing in bohr), K primitives each (small: E = 2, K = 4; large: E = 4, K = 6). The CPU (one\n"
                       "  thread, single precision, the same fit) computes cpu-rows bra rows spread evenly over the pairs\n"
                       "  (small: all; large: 1024); those rows of the CPU and of every GPU variant must lie within 1e-4 of the\n"
                       "  double-precision reference (F0 through erf), relative to the row or, for rows below 1e-6 of the\n"
                       "  largest (pairs whose factors underflow single precision), to that floor, before any timing. Parts: kernel,\n"
                       "  application (pairs built and uploaded, the kernel, J downloaded, the energy sum D.J by the host),\n"
                       "  transfer. Rates in Gquartets/s; the CPU's and the GPU's quartet counts differ.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int edge = static_cast<int>(run.options().integer("--edge", size == "small" ? 2 : 4, 1, 16));
    const int per_atom = static_cast<int>(run.options().integer("--per-atom", size == "small" ? 4 : 6, 1, 12));
    const double spacing = run.options().real("--spacing", 2.0);
    if (!(spacing > 0 && spacing <= 100)) throw run.options().error("--spacing", "expected a spacing in (0, 100] bohr");
    const auto seed = static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0));
    const std::vector<RpesPrimitive> molecule = rpes_molecule(edge, per_atom, spacing);
    const long long pairs_count = static_cast<long long>(molecule.size()) * (molecule.size() + 1) / 2;
    if (pairs_count > (1LL << 24)) throw run.options().error("--edge", "more than 2^24 primitive pairs");
    const int m = static_cast<int>(pairs_count);
    const int cpu_rows = static_cast<int>(run.options().integer("--cpu-rows", size == "small" ? m : 1024, 1, m));
    run.start(rpes_variants().name_list());
    run.open("rpes");
    const RpesPairs pairs = rpes_pairs(molecule, seed);
    const RpesPacked packed = rpes_pack(pairs);
    const std::vector<float> table = rpes_fit_table();
    std::vector<int> rows;
    for (int r = 0; r < cpu_rows; ++r) rows.push_back(static_cast<int>(static_cast<long long>(r) * m / cpu_rows));
    const double cpu_quartets = static_cast<double>(cpu_rows) * m, gpu_quartets = static_cast<double>(m) * m;
    const std::vector<double> reference = rpes_rows_fp64(pairs, rows);
    std::vector<float> cpu;
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] { cpu = rpes_rows_cpu(packed, table, rows); });
        double energy = 0;
        const auto application = time_cpu(run, [&] {
            const RpesPacked p = rpes_pack(rpes_pairs(molecule, seed));
            cpu = rpes_rows_cpu(p, table, rows);
            energy = 0;
            for (std::size_t i = 0; i < rows.size(); ++i) energy += pairs.density[rows[i]] * cpu[i];
        });
        const double worst = rpes_row_error(cpu, reference);
        run.record("cpu", "", "kernel", kernel, cpu_quartets, "quartets", worst <= rpes_row_bound, error_text(worst));
        run.record("cpu", "", "application", application, cpu_quartets, "quartets", worst <= rpes_row_bound && energy > 0,
                   error_text(worst));
    } else {
        cpu = rpes_rows_cpu(packed, table, rows);
        const double worst = rpes_row_error(cpu, reference);
        if (!(worst <= rpes_row_bound)) run.failed("cpu", "J rows outside the bound: " + error_text(worst));
    }
    set_rpes_table(table);
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    auto* geometry = memory.allocate<float4>(static_cast<std::size_t>(m), "allocate the pair geometry");
    auto* k = memory.upload(packed.k, "upload the pair factors");
    auto* kd = memory.upload(packed.kd, "upload the ket factors");
    auto* j = memory.allocate<float>(static_cast<std::size_t>(m), "allocate J");
    const auto upload = [&](const RpesPacked& p) {
        harness::check(cudaMemcpyAsync(geometry, p.geometry.data(), p.geometry.size() * sizeof(float), cudaMemcpyHostToDevice, s),
                       "upload the pair geometry");
        harness::check(cudaMemcpyAsync(k, p.k.data(), p.k.size() * sizeof(float), cudaMemcpyHostToDevice, s), "upload the pair factors");
        harness::check(cudaMemcpyAsync(kd, p.kd.data(), p.kd.size() * sizeof(float), cudaMemcpyHostToDevice, s), "upload the ket factors");
    };
    std::vector<float> got(static_cast<std::size_t>(m));
    const auto download = [&] {
        harness::check(cudaMemcpyAsync(got.data(), j, got.size() * sizeof(float), cudaMemcpyDeviceToHost, s), "download J");
    };
    const double bytes = static_cast<double>(m) * (6 * sizeof(float)) + static_cast<double>(m) * sizeof(float);
    for (const auto& name : run.variants()) {
        const RpesVariant& v = rpes_variants().find(name);
        upload(packed);
        v.run(geometry, k, kd, m, j, s);
        download();
        harness::check(cudaStreamSynchronize(s), "run the checked contraction");
        std::vector<float> sample;
        for (int r : rows) sample.push_back(got[static_cast<std::size_t>(r)]);
        const double worst = rpes_row_error(sample, reference);
        if (!(worst <= rpes_row_bound)) {
            run.failed(name, "J rows outside the bound: " + error_text(worst));
            continue;
        }
        const std::string checked = error_text(worst);
        if (run.times("kernel"))
            run.record(name, "", "kernel", harness::measure(s, run.gpu(), run.monitor(), [&] { v.run(geometry, k, kd, m, j, s); }),
                       gpu_quartets, "quartets", true, checked);
        if (run.times("application")) {
            double energy = 0;
            const auto measured = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                const RpesPacked fresh = rpes_pack(rpes_pairs(molecule, seed));
                upload(fresh);
                v.run(geometry, k, kd, m, j, s);
                download();
                harness::check(cudaStreamSynchronize(s), "finish the contraction");
                energy = 0;
                for (int i = 0; i < m; ++i) energy += pairs.density[static_cast<std::size_t>(i)] * got[static_cast<std::size_t>(i)];
            });
            run.record(name, "", "application", measured, gpu_quartets, "quartets", energy > 0, checked);
        }
        if (run.times("transfer")) {
            const auto measured = harness::measure(s, run.gpu(), run.monitor(), [&] {
                upload(packed);
                download();
            });
            run.record(name, "", "transfer", measured, bytes, "B", true, "copies");
        }
    }
    return run.finish();
}

}  // namespace ryoo::app
