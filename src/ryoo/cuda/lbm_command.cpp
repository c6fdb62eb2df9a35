// `ryoo lbm`: the lattice-Boltzmann application of the paper's suite, a lid-driven cavity with an obstacle.
// The CPU runs fewer steps than the GPU at the large size (its rate per step is what is compared); every GPU
// variant's lattice after the CPU's steps must equal the CPU's bit for bit before it is timed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/lbm.hpp"
#include "ryoo/cuda/app_run.hpp"
#include "ryoo/lbm_math.hpp"

namespace ryoo::app {
namespace {

using harness::check;

/// Bytes one cell moves per step: its 19 distributions read and written, and its flag read.
constexpr double lbm_bytes_per_cell = 2.0 * lbm_q * sizeof(float) + 1;

}  // namespace

int command_lbm(const Args& args) {
    AppRun run(args, "ryoo lbm", {{"--edge"}, {"--steps"}, {"--cpu-steps"}, {"--lid"}});
    if (run.help()) {
        run.print_help("ryoo lbm [--size small|large] [--edge N] [--steps T] [--cpu-steps T] [--lid 0.05] [shared options]\n"
                       "  D3Q19 lattice Boltzmann (BGK, omega 1.2, single precision) in a cubic lid-driven cavity of N^3\n"
                       "  cells with a cube obstacle (small: N = 32, 20 steps on CPU and GPU; large: N = 128, two lattices\n"
                       "  of 152 MiB, 200 GPU steps and 20 CPU steps). One CPU thread, then each GPU variant (array of\n"
                       "  structures read directly or staged through shared memory, structure of arrays), whose lattice\n"
                       "  after the CPU's steps must equal the CPU's bit for bit before it is timed. Parts: kernel (the\n"
                       "  steps), application (layout, upload, steps, download, mass and kinetic energy on the host),\n"
                       "  transfer (upload and download). Rates in GB/s at 153 bytes per cell and step, so that runs of\n"
                       "  different step counts compare.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int edge = static_cast<int>(run.options().integer("--edge", size == "small" ? 32 : 128, 4, 1024));
    const int steps = static_cast<int>(run.options().integer("--steps", size == "small" ? 20 : 200, 1, 1000000));
    const int cpu_steps = static_cast<int>(run.options().integer("--cpu-steps", 20, 1, 1000000));
    if (cpu_steps > steps) throw run.options().error("--cpu-steps", "the CPU runs at most --steps steps (" + std::to_string(steps) + ")");
    const double lid_option = run.options().real("--lid", 0.05);
    if (!(std::fabs(lid_option) < 0.3)) throw run.options().error("--lid", "expected a lid velocity below 0.3 in magnitude (lattice units)");
    const auto lid = static_cast<float>(lid_option);
    run.start(lbm_variants().name_list());
    const double cells = static_cast<double>(edge) * edge * edge;
    harness::check_host_bytes(run.options(), "--edge", cells * (5.0 * lbm_q * sizeof(float) + 1), "the lattices and their copies");
    run.open("lbm");
    const LbmInput in = lbm_cavity(edge, edge, edge, 1.2f, lid, true, true);
    const std::vector<float> rest = lbm_rest(in);
    const auto cpu_parameter = "steps=" + std::to_string(cpu_steps), gpu_parameter = "steps=" + std::to_string(steps);
    std::vector<float> reference;
    LbmSummary summary;
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] {
            reference = rest;
            lbm_run_cpu(in, reference, cpu_steps);
        });
        const auto application = time_cpu(run, [&] {
            std::vector<float> f = lbm_rest(in);
            lbm_run_cpu(in, f, cpu_steps);
            summary = lbm_summary(in, f);
        });
        run.record("cpu", cpu_parameter, "kernel", kernel, lbm_bytes_per_cell * cells * cpu_steps, "B", true, "reference");
        run.record("cpu", cpu_parameter, "application", application, lbm_bytes_per_cell * cells * cpu_steps, "B", true, "reference");
    } else {
        reference = rest;
        lbm_run_cpu(in, reference, cpu_steps);
        summary = lbm_summary(in, reference);
    }
    // Every step conserves mass (each distribution lands in exactly one cell, and collisions keep density).
    const double mass0 = static_cast<double>(in.cells());
    if (!(std::fabs(summary.mass - mass0) <= 1e-4 * mass0))
        run.failed("cpu", "the lattice's mass moved from " + std::to_string(mass0) + " to " + std::to_string(summary.mass));
    const std::size_t floats = rest.size(), bytes = floats * sizeof(float);
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    LbmGeometry g;
    g.flags = memory.upload(in.flags, "upload the cell flags");
    g.nx = g.ny = g.nz = edge;
    g.omega = in.omega;
    g.lid_velocity = in.lid_velocity;
    float* a = memory.allocate<float>(floats, "allocate the first lattice");
    float* b = memory.allocate<float>(floats, "allocate the second lattice");
    std::vector<float> host(floats);
    for (const auto& name : run.variants()) {
        const LbmVariant& v = lbm_variants().find(name);
        // The layout the variant stores (the host keeps the cell-major one).
        const auto to_device = [&](const std::vector<float>& aos) { return v.soa ? lbm_to_soa(aos, in.cells()) : aos; };
        const auto to_host = [&](const std::vector<float>& stored) { return v.soa ? lbm_to_aos(stored, in.cells()) : stored; };
        const std::vector<float> start = to_device(rest);
        // Runs @p count steps from the lattice in a; returns the lattice holding the result.
        const auto advance = [&](int count) {
            float* src = a;
            float* dst = b;
            for (int t = 0; t < count; ++t) {
                v.step(src, dst, g, s);
                std::swap(src, dst);
            }
            return src;
        };
        check(cudaMemcpyAsync(a, start.data(), bytes, cudaMemcpyHostToDevice, s), "upload the lattice");
        const float* result = advance(cpu_steps);
        check(cudaMemcpyAsync(host.data(), result, bytes, cudaMemcpyDeviceToHost, s), "download the lattice");
        check(cudaStreamSynchronize(s), "run the checked steps");
        const std::vector<float> got = to_host(host);
        if (std::memcmp(got.data(), reference.data(), bytes) != 0) {
            std::size_t differ = 0;
            for (std::size_t i = 0; i < floats; ++i) differ += std::memcmp(&got[i], &reference[i], sizeof(float)) != 0;
            run.failed(name, std::to_string(differ) + " distributions differ from the CPU's after " + std::to_string(cpu_steps) + " steps");
            continue;
        }
        const double work = lbm_bytes_per_cell * cells * steps;
        if (run.times("kernel")) {
            const auto m = harness::measure_self_timed(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(a, start.data(), bytes, cudaMemcpyHostToDevice, s), "reset the lattice");
                return event_ms(s, [&] { advance(steps); });
            });
            run.record(name, gpu_parameter, "kernel", m, work, "B", true, "bitwise");
        }
        if (run.times("application")) {
            const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                const std::vector<float> up = to_device(lbm_rest(in));
                check(cudaMemcpyAsync(a, up.data(), bytes, cudaMemcpyHostToDevice, s), "upload the lattice");
                const float* out = advance(steps);
                check(cudaMemcpyAsync(host.data(), out, bytes, cudaMemcpyDeviceToHost, s), "download the lattice");
                check(cudaStreamSynchronize(s), "finish the steps");
                (void)lbm_summary(in, to_host(host));
            });
            run.record(name, gpu_parameter, "application", m, work, "B", true, "bitwise");
        }
        if (run.times("transfer")) {
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                check(cudaMemcpyAsync(a, start.data(), bytes, cudaMemcpyHostToDevice, s), "upload the lattice");
                check(cudaMemcpyAsync(host.data(), b, bytes, cudaMemcpyDeviceToHost, s), "download the lattice");
            });
            run.record(name, gpu_parameter, "transfer", m, 2.0 * bytes, "B", true, "copies");
        }
    }
    return run.finish();
}

}  // namespace ryoo::app
