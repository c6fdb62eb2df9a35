// `ryoo fem`: the FEM stand-in of the paper's suite (Ryoo et al.'s FEM code is not public). Explicit time
// stepping of the scalar wave equation on a tetrahedral mesh of a graded material with shuffled node numbers;
// the steps run on the GPU and only the final state comes back, as in the paper's FEM, whose time is almost
// all in the kernel. Every GPU variant's state after the CPU's steps must equal the CPU's bit for bit before
// it is timed.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/fem.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;

/// Nominal bytes of one step per node, besides its stiffness entries: its row offset, step weight and
/// displacement (the gathered neighbours' displacements counted once, as if cached), its velocity read and
/// written, and the new displacement written (6 floats or indices).
constexpr double fem_bytes_per_node = 6 * 4;
/// Nominal bytes of one step per stiffness entry: its column index and value.
constexpr double fem_bytes_per_entry = 2 * 4;

/// Nodes at which two arrays differ in their bits.
std::size_t differing(const std::vector<float>& a, const std::vector<float>& b) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return n;
}

}  // namespace

int command_fem(const Args& args) {
    AppRun run(args, "ryoo fem", {{"--edge"}, {"--steps"}, {"--cpu-steps"}});
    if (run.help()) {
        run.print_help("ryoo fem [--size small|large] [--edge N] [--steps T] [--cpu-steps T] [shared options]\n"
                       "  FEM stand-in (the paper's FEM code is not public): explicit time stepping of the scalar wave\n"
                       "  equation, lumped mass, on a tetrahedral mesh of N^3 jittered cubes (six tetrahedra each) of a\n"
                       "  graded material, node numbers shuffled by a fixed permutation (small: N = 16, 20 steps on CPU and\n"
                       "  GPU; large: N = 128, 2.1 million nodes, a stiffness matrix of 260 MB in compressed rows, 2000 GPU\n"
                       "  steps and 10 CPU steps). One CPU thread, then each GPU variant (the mesh as numbered, the mesh\n"
                       "  renumbered in row order), whose state after the CPU's steps must equal the CPU's bit for bit\n"
                       "  before it is timed. Parts: kernel (the steps), application (upload of the mesh and state, the\n"
                       "  steps, download of the state, its energy on the host), transfer (the application's copies).\n"
                       "  Rates in GB/s at 24 bytes per node and 8 per stiffness entry and step.");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int edge = static_cast<int>(run.options().integer("--edge", size == "small" ? 16 : 128, 2, 400));
    const int steps = static_cast<int>(run.options().integer("--steps", size == "small" ? 20 : 2000, 1, 1000000));
    const int cpu_steps = static_cast<int>(run.options().integer("--cpu-steps", size == "small" ? 20 : 10, 1, 1000000));
    if (cpu_steps > steps) throw run.options().error("--cpu-steps", "the CPU runs at most --steps steps (" + std::to_string(steps) + ")");
    run.start(fem_variants().name_list());
    const double points = std::pow(edge + 1.0, 3);
    harness::check_host_bytes(run.options(), "--edge", points * 500.0, "the mesh, its assembly, its renumbered copy and the states");
    run.open("fem");
    const FemMesh mesh = synthetic_fem_mesh(edge);
    const FemState start = fem_initial(mesh);
    const double step_bytes = fem_bytes_per_node * static_cast<double>(mesh.nodes()) + fem_bytes_per_entry * static_cast<double>(mesh.entries());
    const auto cpu_parameter = "steps=" + std::to_string(cpu_steps), gpu_parameter = "steps=" + std::to_string(steps);
    FemState reference = start;
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] {
            reference = start;
            fem_run_cpu(mesh, reference, cpu_steps);
        });
        const auto application = time_cpu(run, [&] {
            FemState s = start;
            fem_run_cpu(mesh, s, cpu_steps);
            (void)fem_energy(mesh, s);
        });
        run.record("cpu", cpu_parameter, "kernel", kernel, step_bytes * cpu_steps, "B", true, "reference");
        run.record("cpu", cpu_parameter, "application", application, step_bytes * cpu_steps, "B", true, "reference");
    } else {
        fem_run_cpu(mesh, reference, cpu_steps);
    }
    // The explicit scheme is stable at the mesh's time step: the energy stays near the initial one.
    const double e0 = fem_energy(mesh, start), e1 = fem_energy(mesh, reference);
    if (!(std::fabs(e1 - e0) <= 0.05 * e0))
        run.failed("cpu", "the energy moved from " + std::to_string(e0) + " to " + std::to_string(e1) + " (more than 5 %)");
    const std::size_t nodes = mesh.nodes(), bytes = nodes * sizeof(float);
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    auto* row_start = memory.allocate<std::int32_t>(nodes + 1, "allocate the row offsets");
    auto* column = memory.allocate<std::int32_t>(mesh.entries(), "allocate the column indices");
    auto* value = memory.allocate<float>(mesh.entries(), "allocate the stiffness values");
    auto* weight = memory.allocate<float>(nodes, "allocate the step weights");
    float* a = memory.allocate<float>(nodes, "allocate the first displacement");
    float* b = memory.allocate<float>(nodes, "allocate the second displacement");
    FemDevice d;
    d.row_start = row_start;
    d.column = column;
    d.value = value;
    d.step_weight = weight;
    d.v = memory.allocate<float>(nodes, "allocate the velocity");
    d.dt = mesh.dt;
    d.nodes = static_cast<int>(nodes);
    FemState got;
    got.u.resize(nodes);
    got.v.resize(nodes);
    const FemMesh ordered = fem_row_ordered(mesh);
    for (const auto& name : run.variants()) {
        const FemVariant& v = fem_variants().find(name);
        const FemMesh& m = v.row_ordered ? ordered : mesh;
        const FemState initial = v.row_ordered ? fem_renumber(mesh, start, ordered) : start;
        const auto upload = [&] {
            check(cudaMemcpyAsync(row_start, m.row_start.data(), (nodes + 1) * sizeof(std::int32_t), cudaMemcpyHostToDevice, s),
                  "upload the row offsets");
            check(cudaMemcpyAsync(column, m.column.data(), m.entries() * sizeof(std::int32_t), cudaMemcpyHostToDevice, s),
                  "upload the column indices");
            check(cudaMemcpyAsync(value, m.value.data(), m.entries() * sizeof(float), cudaMemcpyHostToDevice, s), "upload the stiffness values");
            check(cudaMemcpyAsync(weight, m.step_weight.data(), bytes, cudaMemcpyHostToDevice, s), "upload the step weights");
        };
        const auto reset = [&] {
            check(cudaMemcpyAsync(a, initial.u.data(), bytes, cudaMemcpyHostToDevice, s), "upload the displacement");
            check(cudaMemcpyAsync(d.v, initial.v.data(), bytes, cudaMemcpyHostToDevice, s), "upload the velocity");
        };
        // Runs @p count steps from the displacement in a; returns the array holding the result.
        const auto advance = [&](int count) {
            float* u = a;
            float* next = b;
            for (int t = 0; t < count; ++t) {
                v.step(d, u, next, s);
                std::swap(u, next);
            }
            return u;
        };
        const auto download = [&](const float* u) {
            check(cudaMemcpyAsync(got.u.data(), u, bytes, cudaMemcpyDeviceToHost, s), "download the displacement");
            check(cudaMemcpyAsync(got.v.data(), d.v, bytes, cudaMemcpyDeviceToHost, s), "download the velocity");
            check(cudaStreamSynchronize(s), "wait for the state");
        };
        upload();
        reset();
        download(advance(cpu_steps));
        const FemState back = v.row_ordered ? fem_renumber(ordered, got, mesh) : got;
        const std::size_t du = differing(back.u, reference.u), dv = differing(back.v, reference.v);
        if (du + dv > 0) {
            run.failed(name, "the displacement differs at " + std::to_string(du) + " nodes and the velocity at " + std::to_string(dv) +
                                 " nodes from the CPU's after " + std::to_string(cpu_steps) + " steps");
            continue;
        }
        const double work = step_bytes * steps;
        if (run.times("kernel")) {
            const auto t = harness::measure_self_timed(s, run.gpu(), run.monitor(), [&] {
                reset();
                return event_ms(s, [&] { advance(steps); });
            });
            run.record(name, gpu_parameter, "kernel", t, work, "B", true, "bitwise");
        }
        if (run.times("application"))
            run.record(name, gpu_parameter, "application", harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                           upload();
                           reset();
                           download(advance(steps));
                           (void)fem_energy(m, got);
                       }),
                       work, "B", true, "bitwise");
        if (run.times("transfer")) {
            const auto t = harness::measure(s, run.gpu(), run.monitor(), [&] {
                upload();
                reset();
                check(cudaMemcpyAsync(got.u.data(), a, bytes, cudaMemcpyDeviceToHost, s), "download the displacement");
                check(cudaMemcpyAsync(got.v.data(), d.v, bytes, cudaMemcpyDeviceToHost, s), "download the velocity");
            });
            const double copied = static_cast<double>((nodes + 1) * 4 + m.entries() * 8 + 5 * bytes);
            run.record(name, gpu_parameter, "transfer", t, copied, "B", true, "copies");
        }
    }
    return run.finish();
}

}  // namespace ryoo::app
