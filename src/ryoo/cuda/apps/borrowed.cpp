// MRI-Q, MRI-FHD and CP of the paper's Table 3, whose kernels the kirk_hwu study builds (linked into this
// program): the kirk_hwu input of the size asked for, a single-thread CPU baseline over a share of it, and
// each GPU variant within its tolerance of the double-precision reference before it is timed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "kirk_hwu/gpu_variants.hpp"
#include "kirk_hwu/reference.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/cuda/app_run.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace kh = kirk_hwu;

/// The kirk_hwu variants of @p problem, by name.
std::vector<std::string> names_of(kh::gpu::Problem problem) {
    std::vector<std::string> out;
    for (const auto& v : kh::gpu::variants_of(problem)) out.push_back(v.name);
    return out;
}

/// @p in restricted to its first @p count voxels (every sample kept): the CPU baseline's share of the work.
kh::MriInput first_voxels(const kh::MriInput& in, std::size_t count) {
    kh::MriInput out = in;
    count = std::min(count, in.voxels());
    out.x.resize(count);
    out.y.resize(count);
    out.z.resize(count);
    return out;
}

/// @p in restricted to its first @p rows lattice rows of the first slice (every atom kept).
kh::CoulombInput first_rows(const kh::CoulombInput& in, int rows) {
    kh::CoulombInput out = in;
    out.gz = 1;
    out.gy = std::min(rows, in.gy);
    return out;
}

/// The bound on the CPU baseline's relative L2 error against the FP64 reference.
constexpr double cpu_tolerance = 1e-3;

/// One of the three computations (MRI-Q, MRI-FHD: `mri`; CP: the Coulomb lattice).
class Borrowed final : public Application {
public:
    Borrowed(AppRun& run, kh::gpu::Problem problem, std::string application)
        : run_(run), problem_(problem), application_(std::move(application)), mri_(problem != kh::gpu::Problem::coulomb),
          out_(problem == kh::gpu::Problem::mri_q ? kh::MriOutput::q : kh::MriOutput::fhd) {
        const bool small = run.size_choice() == "small";
        size_ = small ? kh::Size::tiny : kh::Size::full;
        cpu_points_ = static_cast<std::size_t>(run.options().integer("--cpu-points", small ? 0 : mri_ ? 512 : 4096, 0, 1LL << 26));
        check_count_ = static_cast<std::size_t>(run.options().integer("--check-points", 2048, 1, 1 << 20));
    }

    std::vector<std::string> variant_names() const override { return names_of(problem_); }

    void prepare() override {
        if (mri_) {
            mri_in_ = kh::make_mri_input(size_);
            points_ = mri_in_.voxels();
            terms_ = mri_in_.samples();
        } else {
            dcs_in_ = kh::make_coulomb_input(size_);
            points_ = dcs_in_.points();
            terms_ = dcs_in_.atom_count();
        }
        std::printf("%s: %zu points x %zu terms = %.3g pairs\n", application_.c_str(), points_, terms_, pairs());
        check_points_ = kh::spread_subset(points_, check_count_);
        const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        reference_ = mri_ ? kh::mri_reference(mri_in_, out_, check_points_, threads) : kh::coulomb_reference(dcs_in_, check_points_, threads);
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        if (run_.cpu_samples() == 0) return c;  // no CPU run at all: the GPU is checked against the FP64 reference
        // The CPU's share: the first points (the whole input when small), every term.
        if (mri_) mri_part_ = cpu_points_ ? first_voxels(mri_in_, cpu_points_) : mri_in_;
        else dcs_part_ = cpu_points_ ? first_rows(dcs_in_, static_cast<int>((cpu_points_ + dcs_in_.gx - 1) / dcs_in_.gx)) : dcs_in_;
        const std::size_t part = mri_ ? mri_part_.voxels() : dcs_part_.points();
        c.work = static_cast<double>(part) * static_cast<double>(terms_);
        c.kernel = [this] {
            if (mri_) kh::mri_cpu_scatter(mri_part_, out_, real_, imaginary_);
            else kh::coulomb_cpu(dcs_part_, potential_);
        };
        c.after_kernel = [this, part] { judge_cpu(part); };
        c.application = c.kernel;
        c.verdict = [this] {
            const bool valid = cpu_ok_ || cpu_compared_ == 0;
            if (cpu_compared_ > 0 && !cpu_ok_)
                run_.failed("cpu", "the CPU baseline is not within 1e-3 of the FP64 reference");
            return CpuVerdict{valid, valid, cpu_checked_};
        };
        return c;
    }

    void upload() override {
        // Double-precision arrays only when a named variant computes in double: a float application has none.
        for (const auto& name : run_.variants()) with_fp64_ = with_fp64_ || kh::gpu::variants().find(name).fp64;
        // The device copy the kernel timings reuse; the application builds its own each time.
        if (mri_) mri_dev_ = std::make_unique<kh::gpu::MriDevice>(mri_in_, out_, with_fp64_);
        else dcs_dev_ = std::make_unique<kh::gpu::CoulombDevice>(dcs_in_);
        // Bytes of the input and of the output, for the transfer part: what the device copies upload in float
        // (MRI: the voxel positions, the sample coordinates and the seven raw sample arrays of the weight
        // kernel; CP: the atoms and the per-slice atoms) and the whole output.
        in_bytes_ = mri_ ? sizeof(float) * (3 * points_ + 10 * mri_in_.samples())
                         : sizeof(float) * dcs_in_.atoms.size() * (1 + static_cast<std::size_t>(dcs_in_.gz));
        out_bytes_ = sizeof(float) * points_ * (mri_ ? 2 : 1);
        host_in_.assign(in_bytes_ / sizeof(float), 1.0f);
        host_out_.resize(out_bytes_ / sizeof(float));
        d_in_ = run_.memory().allocate<float>(host_in_.size(), "allocate the transfer buffer of the input");
        d_out_ = run_.memory().allocate<float>(host_out_.size(), "allocate the transfer buffer of the output");
    }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const kh::gpu::Variant* v = &kh::gpu::variants().find(name);
        const cudaStream_t s = run_.stream();
        const auto compute = [this, v, s] {
            if (mri_) v->mri(*mri_dev_, settings_, s);
            else v->coulomb(*dcs_dev_, settings_, s);
        };
        compute();
        check(cudaStreamSynchronize(s), "run the checked computation");
        const std::vector<double> got = mri_ ? mri_dev_->download(check_points_, v->fp64) : dcs_dev_->download(check_points_);
        const kh::ErrorStats e = kh::compare(reference_, got);
        if (!(e.rel_l2 <= v->tolerance && e.max_rel <= v->tolerance))
            return GpuCheck::wrong("outside its tolerance " + harness::csv_number(v->tolerance) + ": rel L2 " + harness::csv_number(e.rel_l2) +
                                   ", max rel " + harness::csv_number(e.max_rel));
        GpuParts p;
        p.checked = "rel L2 " + harness::csv_number(e.rel_l2);
        p.work = pairs();
        p.kernel = compute;
        p.application = [this, v, s] {
            if (mri_) {
                kh::gpu::MriDevice d(mri_in_, out_, with_fp64_);
                v->mri(d, settings_, s);
                check(cudaStreamSynchronize(s), "finish the computation");
                (void)d.download({}, v->fp64);
            } else {
                kh::gpu::CoulombDevice d(dcs_in_);
                v->coulomb(d, settings_, s);
                check(cudaStreamSynchronize(s), "finish the computation");
                (void)d.download({});
            }
        };
        p.transfer = [this, s] {
            check(cudaMemcpyAsync(d_in_, host_in_.data(), in_bytes_, cudaMemcpyHostToDevice, s), "upload the input");
            check(cudaMemcpyAsync(host_out_.data(), d_out_, out_bytes_, cudaMemcpyDeviceToHost, s), "download the output");
        };
        p.transfer_bytes = static_cast<double>(in_bytes_ + out_bytes_);
        return GpuCheck::passed(std::move(p));
    }

private:
    /// Point-term pairs of the whole input.
    double pairs() const { return static_cast<double>(points_) * static_cast<double>(terms_); }

    /// The CPU's result against the FP64 reference at the check points inside its share of @p part points.
    void judge_cpu(std::size_t part) {
        std::vector<std::size_t> inside;
        std::vector<double> expected, got;
        for (std::size_t k = 0; k < check_points_.size(); ++k)
            if (check_points_[k] < part) inside.push_back(k);
        for (const auto k : inside) {
            const std::size_t p = check_points_[k];
            expected.push_back(reference_[k]);
            got.push_back(mri_ ? real_[p] : potential_[p]);
            if (mri_) {
                expected.push_back(reference_[check_points_.size() + k]);
                got.push_back(imaginary_[p]);
            }
        }
        const kh::ErrorStats e = kh::compare(expected, got);
        cpu_compared_ = inside.size();
        cpu_ok_ = !inside.empty() && e.rel_l2 <= cpu_tolerance;
        cpu_checked_ = inside.empty() ? "not compared" : "rel L2 " + harness::csv_number(e.rel_l2);
    }

    AppRun& run_;
    kh::gpu::Problem problem_;
    std::string application_;
    bool mri_;
    kh::MriOutput out_;
    kh::Size size_ = kh::Size::tiny;
    std::size_t cpu_points_ = 0, check_count_ = 0, points_ = 0, terms_ = 0;
    kh::MriInput mri_in_, mri_part_;
    kh::CoulombInput dcs_in_, dcs_part_;
    std::vector<std::size_t> check_points_;
    std::vector<double> reference_;
    std::vector<float> real_, imaginary_, potential_;
    std::size_t cpu_compared_ = 0;
    bool cpu_ok_ = false;
    std::string cpu_checked_;
    bool with_fp64_ = false;
    std::unique_ptr<kh::gpu::MriDevice> mri_dev_;
    std::unique_ptr<kh::gpu::CoulombDevice> dcs_dev_;
    std::size_t in_bytes_ = 0, out_bytes_ = 0;
    std::vector<float> host_in_, host_out_;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
    const kh::gpu::LaunchSettings settings_;
};

/// The command of @p problem: its name, the CSV's application name, and one line on what it computes.
int borrowed_command(const Args& args, kh::gpu::Problem problem, const std::string& application, const std::string& summary) {
    namespace opt = harness::option;
    const bool mri = problem != kh::gpu::Problem::coulomb;
    const std::vector<harness::OptionSpec> options = {
        opt::value("--cpu-points", "N",
                   mri ? "voxels the CPU baseline computes (the first ones), 0 to 2^26; 0: all"
                       : "lattice points of the first slice, in whole rows, the CPU baseline computes, 0 to 2^26; 0: all",
                   mri ? "all with --size small, 512 with --size large" : "all with --size small, 4096 with --size large"),
        opt::value("--check-points", "N", "points, spread over the output, compared with the FP64 reference, 1 to 2^20",
                   "2048")};
    const std::string about =
        summary +
        " The kirk_hwu study's input of that size (small: its tiny input; large: its full input, the documents' size) "
        "and its GPU variants. The CPU baseline is the documents' single-precision loop on one thread over the first "
        "--cpu-points " +
        std::string(mri ? "voxels" : "lattice points") + ", every " + (mri ? "sample" : "atom") +
        " included: its rate is the CPU's rate. Each GPU variant's output must be within the variant's tolerance of "
        "the FP64 reference at --check-points points before it is timed. Parts: kernel (the computation), "
        "application (allocation and upload of the input, the kernels, download of the whole output), transfer (the "
        "input's upload and the output's download). Rates in Gpairs/s.";
    return run_application(args, {"ryoo " + application, application, "pairs", options, about},
                           [problem, application](AppRun& run) { return std::make_unique<Borrowed>(run, problem, application); });
}

}  // namespace

int command_mri_q(const Args& args) {
    return borrowed_command(args, kh::gpu::Problem::mri_q, "mri-q", "MRI-Q: the matrix Q of a non-Cartesian MRI reconstruction.");
}

int command_mri_fhd(const Args& args) {
    return borrowed_command(args, kh::gpu::Problem::mri_fhd, "mri-fhd", "MRI-FHD: the vector F^H d of the same reconstruction.");
}

int command_cp(const Args& args) {
    return borrowed_command(args, kh::gpu::Problem::coulomb, "cp",
                            "CP: the electric potential of point charges on a lattice (direct Coulomb summation).");
}

}  // namespace ryoo::app
