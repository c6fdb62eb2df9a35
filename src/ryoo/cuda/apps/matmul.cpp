// `ryoo matmul-app`: matrix multiplication, this study's ladder, as an application of the paper's Table 3.
// The CPU baseline is the optimised CPU BLAS on one thread; each GPU variant's product must pass the
// double-precision check before it is timed.
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/core/matrix.hpp"
#include "ryoo/core/product_check.hpp"
#include "ryoo/cpu/cpu_blas.hpp"
#include "ryoo/cuda/app_run.hpp"
#include "ryoo/variants.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace opt = harness::option;

/// The matrix-multiplication variants an application run may name: every kernel of the ladder (a library
/// call has no kernel whose resources Table 3 could report).
std::vector<std::string> gemm_kernel_names() {
    std::vector<std::string> out;
    for (const auto& v : gemm_variants().entries())
        if (v.step != "library") out.push_back(v.name);
    return out;
}

class MatmulApp final : public Application {
public:
    explicit MatmulApp(AppRun& run)
        : run_(run),
          n_(static_cast<int>(run.sized("--n", 256, 4096, 16, 16384))),
          seed_(static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0))),
          sample_(run.options().integer("--sample", 65536, 4, static_cast<long long>(n_) * n_)) {}

    std::vector<std::string> variant_names() const override { return gemm_kernel_names(); }

    void check_before_work() override {
        const harness::Options& o = run_.options();
        harness::check_host_bytes(o, "--n", 4.0 * 4.0 * n_ * static_cast<double>(n_), "A, B and two products");
        if (!cpu_blas_available())
            throw o.error("--cpu-samples",
                          "this build has no CPU BLAS (" + cpu_blas_description() + "): the baseline cannot run; install libopenblas-dev and rebuild");
        for (const auto& name : run_.variants())
            if (n_ % gemm_variants().find(name).multiple != 0)
                throw o.error("--n", std::to_string(n_) + " is not a multiple of " + std::to_string(gemm_variants().find(name).multiple) +
                                          ", which " + name + " needs");
    }

    void prepare() override {
        a_ = random_matrix(n_, seed_);
        b_ = random_matrix(n_, seed_ + 1);
        reference_.emplace(a_, b_, sample_);
        c_.resize(static_cast<std::size_t>(n_) * n_);
        bytes_ = c_.size() * sizeof(float);
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.work = flops();
        c.kernel = [this] { cpu_sgemm(a_.data.data(), b_.data.data(), c_.data(), n_, 1); };
        c.after_kernel = [this] {
            cpu_check_ = reference_->check(c_.data(), n_);
            if (!cpu_check_.pass()) run_.failed("cpu", "the CPU BLAS product fails the check: " + cpu_check_.describe());
        };
        // The CPU application is the product alone: its inputs are made before either side is timed.
        c.application = c.kernel;
        c.verdict = [this] {
            const std::string checked = "bound " + harness::csv_number(cpu_check_.worst_ratio);
            return CpuVerdict{cpu_check_.pass(), cpu_check_.pass(), checked};
        };
        return c;
    }

    void upload() override {
        da_ = run_.memory().upload(a_.data, "upload A");
        db_ = run_.memory().upload(b_.data, "upload B");
        dc_ = run_.memory().allocate<float>(c_.size(), "allocate C");
    }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const GemmVariant& v = gemm_variants().find(name);
        try {
            launch_ = v.prepare();
        } catch (const std::runtime_error& e) {
            return GpuCheck::wrong(e.what());
        }
        const cudaStream_t s = run_.stream();
        check(cudaMemsetAsync(dc_, 0xff, bytes_, s), "poison C");
        launch_.run(da_, db_, dc_, n_, s);
        check(cudaMemcpyAsync(c_.data(), dc_, bytes_, cudaMemcpyDeviceToHost, s), "download C");
        check(cudaStreamSynchronize(s), "run the checked product");
        const CheckResult r = reference_->check(c_.data(), n_, single_unit_roundoff, v.input_roundoff);
        if (!r.pass()) return GpuCheck::wrong("the product fails the check: " + r.describe());
        GpuParts p;
        p.checked = "bound " + harness::csv_number(r.worst_ratio);
        p.work = flops();
        p.kernel = [this, s] { launch_.run(da_, db_, dc_, n_, s); };
        p.application = [this, s] {
            harness::DeviceMemory own;
            float* ua = own.upload(a_.data, "upload A");
            float* ub = own.upload(b_.data, "upload B");
            float* uc = own.allocate<float>(c_.size(), "allocate C");
            launch_.run(ua, ub, uc, n_, s);
            check(cudaMemcpyAsync(c_.data(), uc, bytes_, cudaMemcpyDeviceToHost, s), "download C");
            check(cudaStreamSynchronize(s), "finish the product");
        };
        p.transfer = [this, s] {
            check(cudaMemcpyAsync(da_, a_.data.data(), bytes_, cudaMemcpyHostToDevice, s), "upload A");
            check(cudaMemcpyAsync(db_, b_.data.data(), bytes_, cudaMemcpyHostToDevice, s), "upload B");
            check(cudaMemcpyAsync(c_.data(), dc_, bytes_, cudaMemcpyDeviceToHost, s), "download C");
        };
        p.transfer_bytes = 3.0 * bytes_;
        return GpuCheck::passed(std::move(p));
    }

private:
    /// Operations of one product: 2 n^3.
    double flops() const { return 2.0 * n_ * static_cast<double>(n_) * n_; }

    AppRun& run_;
    int n_;
    std::uint64_t seed_;
    long long sample_;
    Matrix a_, b_;
    std::optional<ProductReference> reference_;
    std::vector<float> c_;
    std::size_t bytes_ = 0;
    CheckResult cpu_check_;
    float *da_ = nullptr, *db_ = nullptr, *dc_ = nullptr;
    GemmLaunch launch_;
};

}  // namespace

int command_matmul_app(const Args& args) {
    return run_application<MatmulApp>(
        args, {"ryoo matmul-app",
               "matmul",
               "flop",
               {opt::value("--n", "N", "the matrices' order, 16 to 16384", "256 with --size small, 4096 with --size large"),
                opt::value("--seed", "N", "the seed of the random matrices", "1"),
                opt::value("--sample", "N", "elements of C checked when the product is too large to check whole, 4 to n^2",
                           "65536")},
               "C = A B in single precision as an application: the CPU baseline is the optimised CPU BLAS on one "
               "thread (the paper compared with an SSE2 library), then each GPU variant of the ladder, whose product "
               "must pass the double-precision check (every element, or a sample) before it is timed. Parts: kernel "
               "(the product), application (allocation, upload of A and B, the product, download of C), transfer "
               "(the uploads and the download). Rates in GFLOP/s at 2 n^3 operations."});
}

}  // namespace ryoo::app
