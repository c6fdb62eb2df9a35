// `ryoo tpacf`: the two-point angular correlation of a synthetic sky. The CPU fills the DD, DR and RR
// histograms on one thread; each GPU variant's histograms must equal the CPU's exactly before it is timed.
#include "ryoo/cuda/apps/tpacf_points.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/host_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/tpacf.hpp"
#include "ryoo/cuda/app_run.hpp"
#include "ryoo/tpacf_math.hpp"

namespace ryoo::app {

std::vector<float4> as_float4(const float* xyz, std::size_t count) {
    std::vector<float4> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = make_float4(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], 0.0f);
    return out;
}

namespace {

using harness::check;
namespace opt = harness::option;

/// Pairs of one run: DD and RR per set n (n - 1) / 2, DR per set n^2.
double tpacf_pairs(int points, int sets) {
    const double n = points;
    return n * (n - 1) / 2 * (1 + sets) + n * n * sets;
}

class Tpacf final : public Application {
public:
    explicit Tpacf(AppRun& run)
        : run_(run),
          points_(static_cast<int>(run.sized("--points", 512, 8192, 2, 1 << 22))),
          sets_(static_cast<int>(run.sized("--random-sets", 2, 4, 1, 64))),
          bins_(static_cast<int>(run.options().integer("--bins", 20, 1, tpacf_max_slots - 2))),
          seed_(static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0))) {}

    std::vector<std::string> variant_names() const override { return tpacf_variants().name_list(); }

    void check_before_work() override {
        harness::check_host_bytes(run_.options(), "--points", 28.0 * points_ * (sets_ + 1.0), "the points and their packed copies");
    }

    void prepare() override { in_ = synthetic_sky(points_, sets_, bins_, seed_); }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.work = tpacf_pairs(points_, sets_);
        c.kernel = [this] { reference_ = tpacf_cpu(in_); };
        c.application = [this] { (void)landy_szalay(tpacf_cpu(in_), points_, sets_); };
        c.untimed = c.kernel;
        return c;
    }

    void check_reference() override {
        // The identity every histogram obeys: its total is its number of pairs.
        std::uint64_t total = 0;
        for (int k = 0; k < reference_.slots; ++k) total += reference_.dd[static_cast<std::size_t>(k)];
        if (total != static_cast<std::uint64_t>(points_) * (points_ - 1) / 2) run_.failed("cpu", "DD total is not n (n - 1) / 2");
    }

    void upload() override {
        set_tpacf_edges(in_.edge_cosines);
        slots_ = in_.slots();
        points_on_device_ = run_.memory().allocate<float4>(static_cast<std::size_t>(points_) * (sets_ + 1), "allocate the points");
        histograms_ = run_.memory().allocate<unsigned long long>(static_cast<std::size_t>(slots_) * (1 + 2 * sets_), "allocate the histograms");
        hist_bytes_ = sizeof(unsigned long long) * slots_ * (1 + 2 * sets_);
        pack();
        check(cudaMemcpy(points_on_device_, packed_.data(), packed_.size() * sizeof(float4), cudaMemcpyHostToDevice), "upload the points");
        got_.resize(static_cast<std::size_t>(slots_) * (1 + 2 * sets_));
        h_ = empty_histograms(in_);
    }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        try {
            launch_ = tpacf_variants().find(name).prepare();
        } catch (const std::runtime_error& e) {
            return GpuCheck::wrong(e.what());
        }
        const cudaStream_t s = run_.stream();
        const auto histograms = [this, s] {
            check(cudaMemsetAsync(histograms_, 0, hist_bytes_, s), "clear the histograms");
            launch_.run(points_on_device_, points_, points_on_device_, points_, true, histograms_, s);
            for (int r = 0; r < sets_; ++r) {
                const float4* rs = points_on_device_ + static_cast<std::size_t>(points_) * (r + 1);
                launch_.run(points_on_device_, points_, rs, points_, false, histograms_ + slots_ * (1 + r), s);
                launch_.run(rs, points_, rs, points_, true, histograms_ + slots_ * (1 + sets_ + r), s);
            }
        };
        const auto upload_points = [this, s] {
            check(cudaMemcpyAsync(points_on_device_, packed_.data(), packed_.size() * sizeof(float4), cudaMemcpyHostToDevice, s),
                  "upload the points");
        };
        const auto download = [this, s] {
            check(cudaMemcpyAsync(got_.data(), histograms_, hist_bytes_, cudaMemcpyDeviceToHost, s), "download the histograms");
        };
        histograms();
        download();
        check(cudaStreamSynchronize(s), "run the checked histograms");
        unpack();
        if (!(h_ == reference_)) return GpuCheck::wrong("the histograms differ from the CPU's");
        GpuParts p;
        p.checked = "exact";
        p.work = tpacf_pairs(points_, sets_);
        p.kernel = histograms;
        p.application = [this, s, histograms, upload_points, download] {
            pack();
            upload_points();
            histograms();
            download();
            check(cudaStreamSynchronize(s), "finish the histograms");
            unpack();
            (void)landy_szalay(h_, points_, sets_);
        };
        p.transfer = [upload_points, download] {
            upload_points();
            download();
        };
        p.transfer_bytes = static_cast<double>(packed_.size() * sizeof(float4) + hist_bytes_);
        return GpuCheck::passed(std::move(p));
    }

private:
    /// The data points and then each random set, as float4.
    void pack() {
        packed_ = as_float4(in_.data.data(), points_);
        const auto r = as_float4(in_.random.data(), static_cast<std::size_t>(points_) * sets_);
        packed_.insert(packed_.end(), r.begin(), r.end());
    }
    /// The downloaded counters as histograms.
    void unpack() {
        std::copy_n(got_.begin(), slots_, h_.dd.begin());
        std::copy_n(got_.begin() + slots_, slots_ * sets_, h_.dr.begin());
        std::copy_n(got_.begin() + slots_ * (1 + sets_), slots_ * sets_, h_.rr.begin());
    }

    AppRun& run_;
    int points_, sets_, bins_;
    std::uint64_t seed_;
    TpacfInput in_;
    TpacfHistograms reference_, h_;
    int slots_ = 0;
    std::size_t hist_bytes_ = 0;
    float4* points_on_device_ = nullptr;
    unsigned long long* histograms_ = nullptr;
    std::vector<float4> packed_;
    std::vector<std::uint64_t> got_;
    TpacfLaunch launch_;
};

}  // namespace

int command_tpacf(const Args& args) {
    return run_application<Tpacf>(
        args, {"ryoo tpacf",
               "tpacf",
               "pairs",
               {opt::value("--points", "N", "points of the data set and of each random set",
                           "512 with --size small, 8192 with --size large"),
                opt::value("--random-sets", "N", "random sets, 1 to 64", "2 with --size small, 4 with --size large"),
                opt::value("--bins", "N", "log-spaced angular bins from 1 to 10,000 arcmin", "20"),
                opt::value("--seed", "N", "the seed of the synthetic sky", "1")},
               "The two-point angular correlation of a synthetic sky: the DD, DR and RR histograms on one CPU thread, "
               "then each GPU variant, whose histograms must equal the CPU's exactly before it is timed. Parts: "
               "kernel (all histograms), application (packing, upload, histograms, download, the Landy-Szalay "
               "estimate), transfer (upload and download). Rates in Gpairs/s."});
}

}  // namespace ryoo::app
