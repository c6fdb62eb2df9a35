// `ryoo fdtd`: the two-dimensional FDTD simulation of the paper's suite. The application advances the
// fields step after step and, after every step, probes the field energy on the host (the simulator's output),
// so that only the field updates run on the GPU and the host's share bounds the application's speed-up.
// Every GPU variant's fields and energy series must equal the CPU's bit for bit before it is timed.
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
#include "ryoo/cpu/fdtd.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace opt = harness::option;

/// Bytes one cell moves per step in the three-kernel step: Ey and Ex each read their field, the
/// coefficient and Hz and write their field (4 floats each); Hz reads itself, its coefficient, Ex and Ey and
/// writes itself (5 floats). The rate of every variant is this nominal count over its time.
constexpr double fdtd_bytes_per_cell = 13 * sizeof(float);

/// Cells at which two field arrays differ, and the largest absolute difference.
std::string field_difference(const std::vector<float>& a, const std::vector<float>& b, const char* name) {
    std::size_t differ = 0;
    double largest = 0;
    for (std::size_t c = 0; c < a.size(); ++c)
        if (std::memcmp(&a[c], &b[c], sizeof(float)) != 0) {
            ++differ;
            largest = std::fmax(largest, std::fabs(static_cast<double>(a[c]) - b[c]));
        }
    return differ ? std::string(name) + " differs in " + std::to_string(differ) + " cells (largest " + std::to_string(largest) + "); " : "";
}

class Fdtd final : public Application {
public:
    explicit Fdtd(AppRun& run)
        : run_(run),
          nx_(static_cast<int>(run.sized("--nx", 256, 2048, 4, 32768))),
          ny_(static_cast<int>(run.sized("--ny", 256, 2048, 4, 32768))),
          steps_(static_cast<int>(run.options().integer("--steps", 100, 1, 1000000))),
          parameter_("steps=" + std::to_string(steps_)) {}

    std::vector<std::string> variant_names() const override { return fdtd_variants().name_list(); }

    void check_before_work() override {
        harness::check_host_bytes(run_.options(), "--nx", 4.0 * cells() * 13, "the medium, the reference and downloaded fields");
    }

    void prepare() override { in_ = synthetic_medium(nx_, ny_); }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.parameter = parameter_;
        c.work = work();
        c.kernel = [this] {
            reference_ = zero_fields(in_);
            fdtd_run_cpu(in_, reference_, steps_, nullptr);
        };
        c.application = [this] {
            FdtdFields f = zero_fields(in_);
            energies_.clear();
            fdtd_run_cpu(in_, f, steps_, &energies_);
        };
        c.untimed = [this] {
            reference_ = zero_fields(in_);
            fdtd_run_cpu(in_, reference_, steps_, &energies_);
        };
        return c;
    }

    void check_reference() override {
        for (double e : energies_)
            if (!std::isfinite(e)) {
                run_.failed("cpu", "the field energy is not finite");
                break;
            }
    }

    void upload() override {
        const std::size_t n = in_.cells();
        bytes_ = n * sizeof(float);
        d_.nx = nx_;
        d_.ny = ny_;
        d_.source_index = in_.source_index();
        d_.ex = run_.memory().allocate<float>(n, "allocate Ex");
        d_.ey = run_.memory().allocate<float>(n, "allocate Ey");
        d_.hz = run_.memory().allocate<float>(n, "allocate Hz");
        ce_ = run_.memory().allocate<float>(n, "allocate the E coefficients");
        ch_ = run_.memory().allocate<float>(n, "allocate the H coefficients");
        d_.ce = ce_;
        d_.ch = ch_;
        got_ = zero_fields(in_);
        upload_medium();
    }

    std::vector<std::string> parameters() const override { return {parameter_}; }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const FdtdVariant* v = &fdtd_variants().find(name);
        const cudaStream_t s = run_.stream();
        const auto updates = [this, v, s] {
            for (int t = 0; t < steps_; ++t) v->step(d_, fdtd_source(in_, t), s);
        };
        // The whole application: medium up, then per step the updates, the fields down and the host's probe.
        const auto application = [this, v, s] {
            upload_medium();
            reset();
            got_energies_.clear();
            for (int t = 0; t < steps_; ++t) {
                v->step(d_, fdtd_source(in_, t), s);
                download_fields();
                check(cudaStreamSynchronize(s), "wait for the fields");
                got_energies_.push_back(fdtd_energy(in_, got_));
            }
        };
        application();
        const std::string diff = field_difference(got_.ex, reference_.ex, "Ex") + field_difference(got_.ey, reference_.ey, "Ey") +
                                 field_difference(got_.hz, reference_.hz, "Hz");
        if (!diff.empty()) return GpuCheck::wrong(diff + "the fields differ from the CPU's after " + std::to_string(steps_) + " steps");
        if (got_energies_.size() != energies_.size() ||
            std::memcmp(got_energies_.data(), energies_.data(), energies_.size() * sizeof(double)) != 0)
            return GpuCheck::wrong("the energy series differs from the CPU's");
        GpuParts p;
        p.checked = "bitwise";
        p.work = work();
        p.kernel = updates;
        p.kernel_reset = [this] { reset(); };
        p.application = application;
        p.transfer = [this] {
            upload_medium();
            for (int t = 0; t < steps_; ++t) download_fields();
        };
        p.transfer_bytes = (2.0 + 3.0 * steps_) * bytes_;
        return GpuCheck::passed(std::move(p));
    }

private:
    double cells() const { return static_cast<double>(nx_) * ny_; }
    /// Bytes of the nominal count over every step.
    double work() const { return fdtd_bytes_per_cell * cells() * steps_; }
    /// Enqueues the uploads of the medium's coefficients.
    void upload_medium() {
        const cudaStream_t s = run_.stream();
        check(cudaMemcpyAsync(ce_, in_.ce.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the E coefficients");
        check(cudaMemcpyAsync(ch_, in_.ch.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the H coefficients");
    }
    /// Enqueues the clearing of the fields.
    void reset() {
        const cudaStream_t s = run_.stream();
        check(cudaMemsetAsync(d_.ex, 0, bytes_, s), "clear Ex");
        check(cudaMemsetAsync(d_.ey, 0, bytes_, s), "clear Ey");
        check(cudaMemsetAsync(d_.hz, 0, bytes_, s), "clear Hz");
    }
    /// Enqueues the downloads of the three fields.
    void download_fields() {
        const cudaStream_t s = run_.stream();
        check(cudaMemcpyAsync(got_.ex.data(), d_.ex, bytes_, cudaMemcpyDeviceToHost, s), "download Ex");
        check(cudaMemcpyAsync(got_.ey.data(), d_.ey, bytes_, cudaMemcpyDeviceToHost, s), "download Ey");
        check(cudaMemcpyAsync(got_.hz.data(), d_.hz, bytes_, cudaMemcpyDeviceToHost, s), "download Hz");
    }

    AppRun& run_;
    int nx_, ny_, steps_;
    std::string parameter_;
    FdtdInput in_;
    FdtdFields reference_, got_;
    std::vector<double> energies_, got_energies_;
    std::size_t bytes_ = 0;
    FdtdDevice d_;
    float* ce_ = nullptr;
    float* ch_ = nullptr;
};

}  // namespace

int command_fdtd(const Args& args) {
    return run_application<Fdtd>(
        args, {"ryoo fdtd",
               "fdtd",
               "B",
               {opt::value("--nx", "N", "cells along x, 4 to 32768", "256 with --size small, 2048 with --size large"),
                opt::value("--ny", "N", "cells along y, 4 to 32768", "256 with --size small, 2048 with --size large"),
                opt::value("--steps", "N", "time steps", "100")},
               "2-D FDTD (TE mode, Yee grid) in a medium given per cell: vacuum with a dielectric block and a point "
               "source (large: five float arrays of 16 MiB). One CPU thread, then each GPU variant, whose fields after "
               "the steps and energy after every step must equal the CPU's bit for bit before it is timed. Parts: "
               "kernel (the field updates of every step, the source computed on the host), application (upload of "
               "the medium, the steps, after each the fields downloaded and their energy summed on the host), "
               "transfer (the application's copies). Rates in GB/s at 52 bytes per cell and step."});
}

}  // namespace ryoo::app
