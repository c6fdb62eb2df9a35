// `ryoo lbm`: the lattice-Boltzmann application of the paper's suite, a lid-driven cavity with an obstacle.
// The CPU runs fewer steps than the GPU at the large size (its rate per step is what is compared); every GPU
// variant's lattice after the CPU's steps must equal the CPU's bit for bit before it is timed.
#include <cuda_runtime.h>

#include <cmath>
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
namespace opt = harness::option;

/// Bytes one cell moves per step: its 19 distributions read and written, and its flag read.
constexpr double lbm_bytes_per_cell = 2.0 * lbm_q * sizeof(float) + 1;

class Lbm final : public Application {
public:
    explicit Lbm(AppRun& run)
        : run_(run),
          edge_(static_cast<int>(run.sized("--edge", 32, 128, 4, 1024))),
          steps_(static_cast<int>(run.sized("--steps", 20, 200, 1, 1000000))),
          cpu_steps_(static_cast<int>(run.options().integer("--cpu-steps", 20, 1, 1000000))) {
        const harness::Options& o = run.options();
        if (cpu_steps_ > steps_) throw o.error("--cpu-steps", "the CPU runs at most --steps steps (" + std::to_string(steps_) + ")");
        const double lid = o.real("--lid", 0.05);
        if (!(std::fabs(lid) < 0.3)) throw o.error("--lid", "expected a lid velocity below 0.3 in magnitude (lattice units)");
        lid_ = static_cast<float>(lid);
    }

    std::vector<std::string> variant_names() const override { return lbm_variants().name_list(); }

    void check_before_work() override {
        harness::check_host_bytes(run_.options(), "--edge", cells() * (5.0 * lbm_q * sizeof(float) + 1), "the lattices and their copies");
    }

    void prepare() override {
        in_ = lbm_cavity(edge_, edge_, edge_, 1.2f, lid_, true, true);
        rest_ = lbm_rest(in_);
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.parameter = "steps=" + std::to_string(cpu_steps_);
        c.work = lbm_bytes_per_cell * cells() * cpu_steps_;
        c.kernel = [this] {
            reference_ = rest_;
            lbm_run_cpu(in_, reference_, cpu_steps_);
        };
        c.application = [this] {
            std::vector<float> f = lbm_rest(in_);
            lbm_run_cpu(in_, f, cpu_steps_);
            summary_ = lbm_summary(in_, f);
        };
        c.untimed = [this] {
            reference_ = rest_;
            lbm_run_cpu(in_, reference_, cpu_steps_);
            summary_ = lbm_summary(in_, reference_);
        };
        return c;
    }

    void check_reference() override {
        // Every step conserves mass (each distribution lands in exactly one cell, and collisions keep density).
        const double mass0 = static_cast<double>(in_.cells());
        if (!(std::fabs(summary_.mass - mass0) <= 1e-4 * mass0))
            run_.failed("cpu", "the lattice's mass moved from " + std::to_string(mass0) + " to " + std::to_string(summary_.mass));
    }

    void upload() override {
        floats_ = rest_.size();
        bytes_ = floats_ * sizeof(float);
        g_.flags = run_.memory().upload(in_.flags, "upload the cell flags");
        g_.nx = g_.ny = g_.nz = edge_;
        g_.omega = in_.omega;
        g_.lid_velocity = in_.lid_velocity;
        a_ = run_.memory().allocate<float>(floats_, "allocate the first lattice");
        b_ = run_.memory().allocate<float>(floats_, "allocate the second lattice");
        host_.resize(floats_);
    }

    std::vector<std::string> parameters() const override { return {"steps=" + std::to_string(steps_)}; }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const LbmVariant* v = &lbm_variants().find(name);
        const cudaStream_t s = run_.stream();
        // The layout the variant stores (the host keeps the cell-major one).
        const auto to_device = [this, v](const std::vector<float>& aos) { return v->soa ? lbm_to_soa(aos, in_.cells()) : aos; };
        const auto to_host = [this, v](const std::vector<float>& stored) { return v->soa ? lbm_to_aos(stored, in_.cells()) : stored; };
        start_ = to_device(rest_);
        // Runs @p count steps from the lattice in a; returns the lattice holding the result.
        const auto advance = [this, v, s](int count) {
            return ping_pong(a_, b_, count, [&](const float* src, float* dst) { v->step(src, dst, g_, s); });
        };
        const auto reset = [this, s] { check(cudaMemcpyAsync(a_, start_.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the lattice"); };
        reset();
        const float* result = advance(cpu_steps_);
        check(cudaMemcpyAsync(host_.data(), result, bytes_, cudaMemcpyDeviceToHost, s), "download the lattice");
        check(cudaStreamSynchronize(s), "run the checked steps");
        const std::vector<float> got = to_host(host_);
        if (std::memcmp(got.data(), reference_.data(), bytes_) != 0) {
            std::size_t differ = 0;
            for (std::size_t i = 0; i < floats_; ++i) differ += std::memcmp(&got[i], &reference_[i], sizeof(float)) != 0;
            return GpuCheck::wrong(std::to_string(differ) + " distributions differ from the CPU's after " + std::to_string(cpu_steps_) + " steps");
        }
        GpuParts p;
        p.checked = "bitwise";
        p.work = lbm_bytes_per_cell * cells() * steps_;
        p.kernel = [this, advance] { advance(steps_); };
        p.kernel_reset = reset;
        p.application = [this, s, to_device, to_host, advance] {
            const std::vector<float> up = to_device(lbm_rest(in_));
            check(cudaMemcpyAsync(a_, up.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the lattice");
            const float* out = advance(steps_);
            check(cudaMemcpyAsync(host_.data(), out, bytes_, cudaMemcpyDeviceToHost, s), "download the lattice");
            check(cudaStreamSynchronize(s), "finish the steps");
            (void)lbm_summary(in_, to_host(host_));
        };
        p.transfer = [this, s, reset] {
            reset();
            check(cudaMemcpyAsync(host_.data(), b_, bytes_, cudaMemcpyDeviceToHost, s), "download the lattice");
        };
        p.transfer_bytes = 2.0 * bytes_;
        return GpuCheck::passed(std::move(p));
    }

private:
    double cells() const { return static_cast<double>(edge_) * edge_ * edge_; }

    AppRun& run_;
    int edge_, steps_, cpu_steps_;
    float lid_ = 0.05f;
    LbmInput in_;
    std::vector<float> rest_, reference_, start_, host_;
    LbmSummary summary_;
    std::size_t floats_ = 0, bytes_ = 0;
    LbmGeometry g_;
    float* a_ = nullptr;
    float* b_ = nullptr;
};

}  // namespace

int command_lbm(const Args& args) {
    return run_application<Lbm>(
        args, {"ryoo lbm",
               "lbm",
               "B",
               {opt::value("--edge", "N", "the cavity's cells per edge (N^3 cells), 4 to 1024",
                           "32 with --size small, 128 with --size large"),
                opt::value("--steps", "N", "GPU time steps", "20 with --size small, 200 with --size large"),
                opt::value("--cpu-steps", "N", "CPU time steps, at most --steps (the GPU's lattice is checked after them)",
                           "20"),
                opt::value("--lid", "V", "the lid's velocity in lattice units, below 0.3", "0.05")},
               "D3Q19 lattice Boltzmann (BGK, omega 1.2, single precision) in a cubic lid-driven cavity of N^3 cells "
               "with a cube obstacle (large: two lattices of 152 MiB). One CPU thread, then each GPU variant (array "
               "of structures read directly or staged through shared memory, structure of arrays), whose lattice "
               "after the CPU's steps must equal the CPU's bit for bit before it is timed. Parts: kernel (the steps), "
               "application (layout, upload, steps, download, mass and kinetic energy on the host), transfer (upload "
               "and download). Rates in GB/s at 153 bytes per cell and step, so that runs of different step counts "
               "compare."});
}

}  // namespace ryoo::app
