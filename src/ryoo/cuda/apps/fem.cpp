// `ryoo fem`: the FEM stand-in of the paper's suite (Ryoo et al.'s FEM code is not public). Explicit time
// stepping of the scalar wave equation on a tetrahedral mesh of a graded material with shuffled node numbers;
// the steps run on the GPU and only the final state comes back, as in the paper's FEM, whose time is almost
// all in the kernel. Every GPU variant's state after the CPU's steps must equal the CPU's bit for bit before
// it is timed.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
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
namespace opt = harness::option;

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

class Fem final : public Application {
public:
    explicit Fem(AppRun& run)
        : run_(run),
          edge_(static_cast<int>(run.sized("--edge", 16, 128, 2, 400))),
          steps_(static_cast<int>(run.sized("--steps", 20, 2000, 1, 1000000))),
          cpu_steps_(static_cast<int>(run.sized("--cpu-steps", 20, 10, 1, 1000000))) {
        if (cpu_steps_ > steps_) throw run.options().error("--cpu-steps", "the CPU runs at most --steps steps (" + std::to_string(steps_) + ")");
    }

    std::vector<std::string> variant_names() const override { return fem_variants().name_list(); }

    void check_before_work() override {
        harness::check_host_bytes(run_.options(), "--edge", std::pow(edge_ + 1.0, 3) * 500.0,
                                  "the mesh, its assembly, its renumbered copy and the states");
    }

    void prepare() override {
        mesh_ = synthetic_fem_mesh(edge_);
        start_ = fem_initial(mesh_);
        step_bytes_ = fem_bytes_per_node * static_cast<double>(mesh_.nodes()) + fem_bytes_per_entry * static_cast<double>(mesh_.entries());
        reference_ = start_;
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.parameter = "steps=" + std::to_string(cpu_steps_);
        c.work = step_bytes_ * cpu_steps_;
        c.kernel = [this] {
            reference_ = start_;
            fem_run_cpu(mesh_, reference_, cpu_steps_);
        };
        c.application = [this] {
            FemState s = start_;
            fem_run_cpu(mesh_, s, cpu_steps_);
            (void)fem_energy(mesh_, s);
        };
        c.untimed = [this] { fem_run_cpu(mesh_, reference_, cpu_steps_); };
        return c;
    }

    void check_reference() override {
        // The explicit scheme is stable at the mesh's time step: the energy stays near the initial one.
        const double e0 = fem_energy(mesh_, start_), e1 = fem_energy(mesh_, reference_);
        if (!(std::fabs(e1 - e0) <= 0.05 * e0))
            run_.failed("cpu", "the energy moved from " + std::to_string(e0) + " to " + std::to_string(e1) + " (more than 5 %)");
    }

    void upload() override {
        nodes_ = mesh_.nodes();
        bytes_ = nodes_ * sizeof(float);
        row_start_ = run_.memory().allocate<std::int32_t>(nodes_ + 1, "allocate the row offsets");
        column_ = run_.memory().allocate<std::int32_t>(mesh_.entries(), "allocate the column indices");
        value_ = run_.memory().allocate<float>(mesh_.entries(), "allocate the stiffness values");
        weight_ = run_.memory().allocate<float>(nodes_, "allocate the step weights");
        a_ = run_.memory().allocate<float>(nodes_, "allocate the first displacement");
        b_ = run_.memory().allocate<float>(nodes_, "allocate the second displacement");
        d_.row_start = row_start_;
        d_.column = column_;
        d_.value = value_;
        d_.step_weight = weight_;
        d_.v = run_.memory().allocate<float>(nodes_, "allocate the velocity");
        d_.dt = mesh_.dt;
        d_.nodes = static_cast<int>(nodes_);
        got_.u.resize(nodes_);
        got_.v.resize(nodes_);
        ordered_ = fem_row_ordered(mesh_);
    }

    std::vector<std::string> parameters() const override { return {"steps=" + std::to_string(steps_)}; }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const FemVariant* v = &fem_variants().find(name);
        const cudaStream_t s = run_.stream();
        const FemMesh* m = v->row_ordered ? &ordered_ : &mesh_;
        initial_ = v->row_ordered ? fem_renumber(mesh_, start_, ordered_) : start_;
        const auto upload_mesh = [this, m, s] {
            check(cudaMemcpyAsync(row_start_, m->row_start.data(), (nodes_ + 1) * sizeof(std::int32_t), cudaMemcpyHostToDevice, s),
                  "upload the row offsets");
            check(cudaMemcpyAsync(column_, m->column.data(), m->entries() * sizeof(std::int32_t), cudaMemcpyHostToDevice, s),
                  "upload the column indices");
            check(cudaMemcpyAsync(value_, m->value.data(), m->entries() * sizeof(float), cudaMemcpyHostToDevice, s),
                  "upload the stiffness values");
            check(cudaMemcpyAsync(weight_, m->step_weight.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the step weights");
        };
        const auto reset = [this, s] {
            check(cudaMemcpyAsync(a_, initial_.u.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the displacement");
            check(cudaMemcpyAsync(d_.v, initial_.v.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the velocity");
        };
        // Runs @p count steps from the displacement in a; returns the array holding the result.
        const auto advance = [this, v, s](int count) {
            return ping_pong(a_, b_, count, [&](const float* u, float* next) { v->step(d_, u, next, s); });
        };
        const auto download = [this, s](const float* u) {
            check(cudaMemcpyAsync(got_.u.data(), u, bytes_, cudaMemcpyDeviceToHost, s), "download the displacement");
            check(cudaMemcpyAsync(got_.v.data(), d_.v, bytes_, cudaMemcpyDeviceToHost, s), "download the velocity");
        };
        upload_mesh();
        reset();
        download(advance(cpu_steps_));
        check(cudaStreamSynchronize(s), "wait for the state");
        const FemState back = v->row_ordered ? fem_renumber(ordered_, got_, mesh_) : got_;
        const std::size_t du = differing(back.u, reference_.u), dv = differing(back.v, reference_.v);
        if (du + dv > 0)
            return GpuCheck::wrong("the displacement differs at " + std::to_string(du) + " nodes and the velocity at " + std::to_string(dv) +
                                   " nodes from the CPU's after " + std::to_string(cpu_steps_) + " steps");
        GpuParts p;
        p.checked = "bitwise";
        p.work = step_bytes_ * steps_;
        p.kernel = [this, advance] { advance(steps_); };
        p.kernel_reset = reset;
        p.application = [this, s, m, upload_mesh, reset, advance, download] {
            upload_mesh();
            reset();
            download(advance(steps_));
            check(cudaStreamSynchronize(s), "wait for the state");
            (void)fem_energy(*m, got_);
        };
        p.transfer = [this, upload_mesh, reset, download] {
            upload_mesh();
            reset();
            download(a_);
        };
        p.transfer_bytes = static_cast<double>((nodes_ + 1) * 4 + m->entries() * 8 + 5 * bytes_);
        return GpuCheck::passed(std::move(p));
    }

private:
    AppRun& run_;
    int edge_, steps_, cpu_steps_;
    FemMesh mesh_, ordered_;
    FemState start_, reference_, initial_, got_;
    double step_bytes_ = 0;
    std::size_t nodes_ = 0, bytes_ = 0;
    std::int32_t* row_start_ = nullptr;
    std::int32_t* column_ = nullptr;
    float* value_ = nullptr;
    float* weight_ = nullptr;
    float* a_ = nullptr;
    float* b_ = nullptr;
    FemDevice d_;
};

}  // namespace

int command_fem(const Args& args) {
    return run_application<Fem>(
        args, {"ryoo fem",
               "fem",
               "B",
               {opt::value("--edge", "N", "the mesh's cubes per edge (N^3 cubes), 2 to 400",
                           "16 with --size small, 128 with --size large"),
                opt::value("--steps", "N", "GPU time steps", "20 with --size small, 2000 with --size large"),
                opt::value("--cpu-steps", "N", "CPU time steps, at most --steps (the GPU's state is checked after them)",
                           "20 with --size small, 10 with --size large")},
               "FEM stand-in (the paper's FEM code is not public): explicit time stepping of the scalar wave "
               "equation, lumped mass, on a tetrahedral mesh of N^3 jittered cubes (six tetrahedra each) of a graded "
               "material, node numbers shuffled by a fixed permutation (large: 2.1 million nodes, a stiffness matrix "
               "of 260 MB in compressed rows). One CPU thread, then each GPU variant (the mesh as numbered, the mesh "
               "renumbered in row order), whose state after the CPU's steps must equal the CPU's bit for bit before "
               "it is timed. Parts: kernel (the steps), application (upload of the mesh and state, the steps, "
               "download of the state, its energy on the host), transfer (the application's copies). Rates in GB/s "
               "at 24 bytes per node and 8 per stiffness entry and step."});
}

}  // namespace ryoo::app
