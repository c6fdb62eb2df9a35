// `ryoo rpes`: two-electron repulsion integrals of s-type primitives with a one-root Rys quadrature,
// contracted with a pair density (J_ab = sum_cd (ab|cd) D_cd). A synthetic molecule on a lattice; the
// single-thread CPU (single precision, the same fit) over a sample of bra rows; the double-precision
// reference over the same rows; every GPU variant's J on those rows within the stated bound of the reference
// before any timing; then the kernel, the application (pairs built and uploaded, the kernel, J downloaded,
// the energy summed by the host) and the transfers. Rates in Gquartets/s.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/rpes.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace opt = harness::option;

/// "max relative error E of bound B".
std::string error_text(double worst) {
    char text[96];
    std::snprintf(text, sizeof text, "max rel error %.3g of bound %.0e", worst, rpes_row_bound);
    return text;
}

class Rpes final : public Application {
public:
    explicit Rpes(AppRun& run) : run_(run) {
        const harness::Options& o = run.options();
        const int edge = static_cast<int>(run.sized("--edge", 2, 4, 1, 16));
        const int per_atom = static_cast<int>(run.sized("--per-atom", 4, 6, 1, 12));
        const double spacing = o.real("--spacing", 2.0);
        if (!(spacing > 0 && spacing <= 100)) throw o.error("--spacing", "expected a spacing in (0, 100] bohr");
        seed_ = static_cast<std::uint64_t>(o.integer("--seed", 1, 0));
        molecule_ = rpes_molecule(edge, per_atom, spacing);
        const long long pairs_count = static_cast<long long>(molecule_.size()) * (molecule_.size() + 1) / 2;
        if (pairs_count > (1LL << 24)) throw o.error("--edge", "more than 2^24 primitive pairs");
        m_ = static_cast<int>(pairs_count);
        cpu_rows_ = static_cast<int>(run.sized("--cpu-rows", m_, 1024, 1, m_));
    }

    std::vector<std::string> variant_names() const override { return rpes_variants().name_list(); }

    void prepare() override {
        pairs_ = rpes_pairs(molecule_, seed_);
        packed_ = rpes_pack(pairs_);
        table_ = rpes_fit_table();
        for (int r = 0; r < cpu_rows_; ++r) rows_.push_back(static_cast<int>(static_cast<long long>(r) * m_ / cpu_rows_));
        reference_ = rpes_rows_fp64(pairs_, rows_);
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.work = static_cast<double>(cpu_rows_) * m_;
        c.kernel = [this] { cpu_ = rpes_rows_cpu(packed_, table_, rows_); };
        c.application = [this] {
            const RpesPacked p = rpes_pack(rpes_pairs(molecule_, seed_));
            cpu_ = rpes_rows_cpu(p, table_, rows_);
            energy_ = 0;
            for (std::size_t i = 0; i < rows_.size(); ++i) energy_ += pairs_.density[rows_[i]] * cpu_[i];
        };
        c.verdict = [this] {
            const double worst = rpes_row_error(cpu_, reference_);
            return CpuVerdict{worst <= rpes_row_bound, worst <= rpes_row_bound && energy_ > 0, error_text(worst)};
        };
        c.untimed = [this] {
            cpu_ = rpes_rows_cpu(packed_, table_, rows_);
            const double worst = rpes_row_error(cpu_, reference_);
            if (!(worst <= rpes_row_bound)) run_.failed("cpu", "J rows outside the bound: " + error_text(worst));
        };
        return c;
    }

    void upload() override {
        set_rpes_table(table_);
        geometry_ = run_.memory().allocate<float4>(static_cast<std::size_t>(m_), "allocate the pair geometry");
        k_ = run_.memory().upload(packed_.k, "upload the pair factors");
        kd_ = run_.memory().upload(packed_.kd, "upload the ket factors");
        j_ = run_.memory().allocate<float>(static_cast<std::size_t>(m_), "allocate J");
        got_.resize(static_cast<std::size_t>(m_));
    }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const RpesVariant* v = &rpes_variants().find(name);
        const cudaStream_t s = run_.stream();
        const auto kernel = [this, v, s] { v->run(geometry_, k_, kd_, m_, j_, s); };
        upload_pairs(packed_);
        kernel();
        download();
        check(cudaStreamSynchronize(s), "run the checked contraction");
        std::vector<float> sample;
        for (int r : rows_) sample.push_back(got_[static_cast<std::size_t>(r)]);
        const double worst = rpes_row_error(sample, reference_);
        if (!(worst <= rpes_row_bound)) return GpuCheck::wrong("J rows outside the bound: " + error_text(worst));
        energy_ = 0;
        GpuParts p;
        p.checked = error_text(worst);
        p.work = static_cast<double>(m_) * m_;
        p.kernel = kernel;
        p.application = [this, s, kernel] {
            const RpesPacked fresh = rpes_pack(rpes_pairs(molecule_, seed_));
            upload_pairs(fresh);
            kernel();
            download();
            check(cudaStreamSynchronize(s), "finish the contraction");
            energy_ = 0;
            for (int i = 0; i < m_; ++i) energy_ += pairs_.density[static_cast<std::size_t>(i)] * got_[static_cast<std::size_t>(i)];
        };
        p.application_valid = [this] { return energy_ > 0; };
        p.transfer = [this] {
            upload_pairs(packed_);
            download();
        };
        p.transfer_bytes = static_cast<double>(m_) * (6 * sizeof(float)) + static_cast<double>(m_) * sizeof(float);
        return GpuCheck::passed(std::move(p));
    }

private:
    /// Enqueues the uploads of the pairs @p p.
    void upload_pairs(const RpesPacked& p) {
        const cudaStream_t s = run_.stream();
        check(cudaMemcpyAsync(geometry_, p.geometry.data(), p.geometry.size() * sizeof(float), cudaMemcpyHostToDevice, s),
              "upload the pair geometry");
        check(cudaMemcpyAsync(k_, p.k.data(), p.k.size() * sizeof(float), cudaMemcpyHostToDevice, s), "upload the pair factors");
        check(cudaMemcpyAsync(kd_, p.kd.data(), p.kd.size() * sizeof(float), cudaMemcpyHostToDevice, s), "upload the ket factors");
    }
    /// Enqueues the download of J.
    void download() {
        check(cudaMemcpyAsync(got_.data(), j_, got_.size() * sizeof(float), cudaMemcpyDeviceToHost, run_.stream()), "download J");
    }

    AppRun& run_;
    std::uint64_t seed_ = 1;
    std::vector<RpesPrimitive> molecule_;
    int m_ = 0, cpu_rows_ = 0;
    RpesPairs pairs_;
    RpesPacked packed_;
    std::vector<float> table_;
    std::vector<int> rows_;
    std::vector<double> reference_;
    std::vector<float> cpu_;
    double energy_ = 0;
    float4* geometry_ = nullptr;
    float* k_ = nullptr;
    float* kd_ = nullptr;
    float* j_ = nullptr;
    std::vector<float> got_;
};

}  // namespace

int command_rpes(const Args& args) {
    return run_application<Rpes>(
        args, {"ryoo rpes",
               "rpes",
               "quartets",
               {opt::value("--edge", "N", "atoms per edge of the lattice (N^3 atoms), 1 to 16",
                           "2 with --size small, 4 with --size large"),
                opt::value("--per-atom", "N", "primitive Gaussians per atom, 1 to 12",
                           "4 with --size small, 6 with --size large"),
                opt::value("--spacing", "BOHR", "the lattice spacing, in (0, 100]", "2.0"),
                opt::value("--cpu-rows", "N", "bra rows the CPU computes, spread evenly over the pairs",
                           "all with --size small, 1024 with --size large"),
                opt::value("--seed", "N", "the seed of the pair density", "1")},
               "Two-electron repulsion integrals (ab|cd) of s-type primitive Gaussians (one-root Rys quadrature: the "
               "weight F0(T) from piecewise polynomial fits, the asymptote beyond) contracted with a positive pair "
               "density: J_ab = sum over every pair cd of (ab|cd) D_cd. Molecule: atoms on a lattice, each with its "
               "primitives. The CPU (one thread, single precision, the same fit) computes --cpu-rows bra rows; those "
               "rows of the CPU and of every GPU variant must lie within 1e-4 of the double-precision reference (F0 "
               "through erf), relative to the row or, for rows below 1e-6 of the largest (pairs whose factors "
               "underflow single precision), to that floor, before any timing. Parts: kernel, application (pairs "
               "built and uploaded, the kernel, J downloaded, the energy sum D.J by the host), transfer. Rates in "
               "Gquartets/s; the CPU's and the GPU's quartet counts differ."});
}

}  // namespace ryoo::app
