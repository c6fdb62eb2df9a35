// `ryoo elimination`: SAXPY inside unblocked Gaussian elimination. The CPU eliminates on one thread with
// HPL's saxpy; each GPU variant runs one kernel per elimination step, and its factorisation must equal the
// CPU's bit for bit, and its solution pass HPL's residual test, before it is timed.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/elimination.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace opt = harness::option;

/// Bytes the row SAXPYs of the whole elimination move at 12 bytes per element (x and y read, y written).
double elimination_bytes(int n) {
    double bytes = 0;
    for (int k = 0; k + 1 < n; ++k) bytes += 12.0 * (n - k - 1.0) * (n - k);
    return bytes;
}

/// HPL's bound on the scaled residual of a correct solution.
constexpr double residual_bound = 16;

class Elimination final : public Application {
public:
    explicit Elimination(AppRun& run)
        : run_(run),
          n_(static_cast<int>(run.sized("--n", 128, 4096, 2, 32768))),
          seed_(static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0))) {}

    std::vector<std::string> variant_names() const override { return elimination_variants().name_list(); }

    void check_before_work() override {
        harness::check_host_bytes(run_.options(), "--n", 3.0 * 4.0 * n_ * (n_ + 33.0), "the system, its reference and a download");
    }

    void prepare() override {
        original_ = dominant_system(n_, seed_);
        reference_ = original_;
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.work = elimination_bytes(n_);
        c.kernel = [this] {
            work_ = original_;
            eliminate_cpu(work_);
        };
        c.after_kernel = [this] { reference_ = work_; };
        c.application = [this] {
            work_ = original_;
            eliminate_cpu(work_);
            x_ = back_substitute(work_);
        };
        c.verdict = [this] {
            const double residual = scaled_residual(original_, x_);
            return CpuVerdict{residual < residual_bound, residual < residual_bound, "residual " + harness::csv_number(residual)};
        };
        c.untimed = [this] {
            eliminate_cpu(reference_);
            x_ = back_substitute(reference_);
        };
        return c;
    }

    void check_reference() override {
        const double residual = scaled_residual(original_, x_);
        if (!(residual < residual_bound)) run_.failed("cpu", "HPL residual " + std::to_string(residual) + " is not below 16");
    }

    void upload() override {
        bytes_ = original_.a.size() * sizeof(float);
        pristine_ = run_.memory().upload(original_.a, "upload the system");
        a_ = run_.memory().allocate<float>(original_.a.size(), "allocate the working matrix");
        got_ = original_;
    }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const EliminationVariant* v = &elimination_variants().find(name);
        const cudaStream_t s = run_.stream();
        const auto steps = [this, v, s] {
            for (int k = 0; k + 1 < n_; ++k) v->step(a_, n_, original_.ld, k, s);
        };
        const auto reset = [this, s] {
            check(cudaMemcpyAsync(a_, pristine_, bytes_, cudaMemcpyDeviceToDevice, s), "reset the working matrix");
        };
        reset();
        steps();
        check(cudaMemcpyAsync(got_.a.data(), a_, bytes_, cudaMemcpyDeviceToHost, s), "download the factorisation");
        check(cudaStreamSynchronize(s), "run the checked elimination");
        const bool same = std::memcmp(got_.a.data(), reference_.a.data(), bytes_) == 0;
        const double residual = scaled_residual(original_, back_substitute(got_));
        if (!same || !(residual < residual_bound))
            return GpuCheck::wrong(same ? "HPL residual " + std::to_string(residual) : "the factorisation differs from the CPU's");
        const auto upload_system = [this, s] {
            check(cudaMemcpyAsync(a_, original_.a.data(), bytes_, cudaMemcpyHostToDevice, s), "upload the system");
        };
        const auto download = [this, s] {
            check(cudaMemcpyAsync(got_.a.data(), a_, bytes_, cudaMemcpyDeviceToHost, s), "download the factorisation");
        };
        GpuParts p;
        p.checked = "bitwise, residual " + harness::csv_number(residual);
        p.work = elimination_bytes(n_);
        p.kernel = steps;
        p.kernel_reset = reset;
        p.application = [this, s, steps, upload_system, download] {
            upload_system();
            steps();
            download();
            check(cudaStreamSynchronize(s), "finish the elimination");
            x_ = back_substitute(got_);
        };
        p.transfer = [upload_system, download] {
            upload_system();
            download();
        };
        p.transfer_bytes = 2.0 * bytes_;
        return GpuCheck::passed(std::move(p));
    }

private:
    AppRun& run_;
    int n_;
    std::uint64_t seed_;
    LinearSystem original_, reference_, work_, got_;
    std::vector<float> x_;
    std::size_t bytes_ = 0;
    const float* pristine_ = nullptr;
    float* a_ = nullptr;
};

}  // namespace

int command_elimination(const Args& args) {
    return run_application<Elimination>(
        args, {"ryoo elimination",
               "elimination",
               "B",
               {opt::value("--n", "N", "the system's order, 2 to 32768", "128 with --size small, 4096 with --size large"),
                opt::value("--seed", "N", "the seed of the random system", "1")},
               "Solves A x = b (A diagonally dominant) by unblocked Gaussian elimination whose row updates are SAXPY "
               "calls: single-thread CPU (HPL's saxpy), then each GPU variant (one kernel per elimination step). Each "
               "GPU factorisation must equal the CPU's bit for bit and the solution must pass HPL's residual test "
               "(< 16) before it is timed. Parts: kernel (the elimination steps), application (upload, steps, "
               "download, back substitution), transfer (upload and download). Rates in GB/s at 12 bytes per SAXPY "
               "element."});
}

}  // namespace ryoo::app
