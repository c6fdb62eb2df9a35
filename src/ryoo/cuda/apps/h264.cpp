// `ryoo h264`: H.264 motion estimation (the SAD search of every 4x4 block over a +-R window, the 8x8 and
// 16x16 SADs summed from them). Synthetic frames with known macroblock shifts; the single-thread CPU search;
// every GPU variant's SADs compared with the CPU's exactly before any timing; then the GPU's search
// (kernel), its application (frames uploaded, search, SADs downloaded, best vectors picked by the host) and
// its transfers.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/h264.hpp"
#include "ryoo/cuda/app_run.hpp"
#include "ryoo/h264_math.hpp"

namespace ryoo::app {
namespace {

using harness::check;
namespace opt = harness::option;

/// Blocks whose SADs differ between @p a and @p b, over the three sizes.
long long differing_sads(const H264Sads& a, const H264Sads& b) {
    long long wrong = 0;
    for (auto [x, y] : {std::pair{&a.sad4, &b.sad4}, std::pair{&a.sad8, &b.sad8}, std::pair{&a.sad16, &b.sad16}}) {
        if (x->size() != y->size()) return -1;
        for (std::size_t i = 0; i < x->size(); ++i) wrong += (*x)[i] != (*y)[i];
    }
    return wrong;
}

/// The host's step after the search: the best vector of every block of every size.
std::size_t pick_vectors(const H264Frames& f, const H264Sads& s) {
    const long long mbs = static_cast<long long>(f.mb_columns()) * f.mb_rows();
    return h264_best(s.sad4, f.blocks4(), f.range).size() + h264_best(s.sad8, 4 * mbs, f.range).size() +
           h264_best(s.sad16, mbs, f.range).size();
}

class H264 final : public Application {
public:
    explicit H264(AppRun& run) : run_(run) {
        const harness::Options& o = run.options();
        width_ = static_cast<int>(run.sized("--width", 176, 1280, 16, 7680));
        height_ = static_cast<int>(run.sized("--height", 144, 720, 16, 4320));
        if (width_ % 16) throw o.error("--width", "must be a multiple of 16");
        if (height_ % 16) throw o.error("--height", "must be a multiple of 16");
        range_ = static_cast<int>(o.integer("--range", 16, 1, 32));
        noise_ = static_cast<int>(o.integer("--noise", 2, 0, 16));
        seed_ = static_cast<std::uint64_t>(o.integer("--seed", 1, 0));
    }

    std::vector<std::string> variant_names() const override { return h264_variants().name_list(); }

    void prepare() override {
        f_ = synthetic_frames(width_, height_, range_, noise_, seed_);
        reference_ = empty_sads(f_);
    }

    CpuBaseline cpu() override {
        CpuBaseline c;
        c.work = sads();
        c.kernel = [this] { search(reference_); };
        c.application = [this] {
            search(reference_);
            picked_ = pick_vectors(f_, reference_);
        };
        c.verdict = [this] { return CpuVerdict{true, picked_ > 0, "reference"}; };
        c.untimed = c.kernel;
        return c;
    }

    void upload() override {
        frames_ = std::make_unique<H264DeviceFrames>(width_, height_);
        d4_ = run_.memory().allocate<std::uint16_t>(reference_.sad4.size(), "allocate the 4x4 SADs");
        d8_ = run_.memory().allocate<std::uint16_t>(reference_.sad8.size(), "allocate the 8x8 SADs");
        d16_ = run_.memory().allocate<std::uint16_t>(reference_.sad16.size(), "allocate the 16x16 SADs");
        got_ = empty_sads(f_);
    }

    GpuCheck check_variant(const std::string& name, const std::string&) override {
        const H264Variant* v = &h264_variants().find(name);
        const cudaStream_t s = run_.stream();
        const int mbs = f_.mb_columns() * f_.mb_rows();
        const auto gpu_search = [this, v, s, mbs] {
            v->run(*frames_, range_, d4_, s);
            h264_larger(d4_, width_, mbs, range_, d8_, d16_, s);
        };
        const auto upload_frames = [this, s] { frames_->upload(f_.current.data(), f_.reference.data(), s); };
        upload_frames();
        check(cudaMemsetAsync(d4_, 0xff, got_.sad4.size() * 2, s), "poison the 4x4 SADs");
        check(cudaMemsetAsync(d8_, 0xff, got_.sad8.size() * 2, s), "poison the 8x8 SADs");
        check(cudaMemsetAsync(d16_, 0xff, got_.sad16.size() * 2, s), "poison the 16x16 SADs");
        gpu_search();
        download();
        check(cudaStreamSynchronize(s), "run the checked search");
        const long long wrong = differing_sads(got_, reference_);
        if (wrong != 0) return GpuCheck::wrong(std::to_string(wrong) + " SADs differ from the CPU's");
        picked_ = 0;
        GpuParts p;
        p.checked = "all SADs exact";
        p.work = sads();
        p.kernel = gpu_search;
        p.application = [this, s, gpu_search, upload_frames] {
            upload_frames();
            gpu_search();
            download();
            check(cudaStreamSynchronize(s), "finish the search");
            picked_ = pick_vectors(f_, got_);
        };
        p.application_valid = [this] { return picked_ > 0 && got_ == reference_; };
        p.transfer = [this, upload_frames] {
            upload_frames();
            download();
        };
        p.transfer_bytes = 2.0 * static_cast<double>(f_.reference.size()) +
                           2.0 * static_cast<double>(got_.sad4.size() + got_.sad8.size() + got_.sad16.size());
        return GpuCheck::passed(std::move(p));
    }

private:
    /// 4x4 SADs of one search.
    double sads() const { return static_cast<double>(f_.blocks4()) * h264_positions(range_); }
    /// The CPU's search into @p s.
    void search(H264Sads& s) const {
        h264_sad4_cpu(f_, s);
        h264_larger_cpu(f_, s);
    }
    /// Enqueues the downloads of the three SAD sizes.
    void download() {
        const cudaStream_t s = run_.stream();
        check(cudaMemcpyAsync(got_.sad4.data(), d4_, got_.sad4.size() * 2, cudaMemcpyDeviceToHost, s), "download the 4x4 SADs");
        check(cudaMemcpyAsync(got_.sad8.data(), d8_, got_.sad8.size() * 2, cudaMemcpyDeviceToHost, s), "download the 8x8 SADs");
        check(cudaMemcpyAsync(got_.sad16.data(), d16_, got_.sad16.size() * 2, cudaMemcpyDeviceToHost, s), "download the 16x16 SADs");
    }

    AppRun& run_;
    int width_ = 0, height_ = 0, range_ = 16, noise_ = 2;
    std::uint64_t seed_ = 1;
    H264Frames f_;
    H264Sads reference_, got_;
    std::size_t picked_ = 0;
    std::unique_ptr<H264DeviceFrames> frames_;
    std::uint16_t *d4_ = nullptr, *d8_ = nullptr, *d16_ = nullptr;
};

}  // namespace

int command_h264(const Args& args) {
    return run_application<H264>(
        args, {"ryoo h264",
               "h264",
               "SADs",
               {opt::value("--width", "N", "the frames' width in pixels, a multiple of 16 up to 7680",
                           "176 with --size small, 1280 with --size large"),
                opt::value("--height", "N", "the frames' height in pixels, a multiple of 16 up to 4320",
                           "144 with --size small, 720 with --size large"),
                opt::value("--range", "N", "the search window's reach R (vectors within +-R), 1 to 32", "16"),
                opt::value("--noise", "N", "the current frame's noise (+-N), 0 to 16", "2"),
                opt::value("--seed", "N", "the seed of the synthetic frames", "1")},
               "H.264 motion estimation: the sum of absolute differences (SAD) of every 4x4 block of a current frame "
               "at every vector of a +-R window of a reference frame (edge pixels clamped), and the 8x8 and 16x16 "
               "SADs summed from them. Synthetic frames (the current frame is the reference shifted per macroblock "
               "plus noise). The CPU searches on one thread; every GPU variant's SADs (all sizes) must equal the "
               "CPU's exactly before it is timed. Parts: kernel (the 4x4 SADs and the larger-block sums), "
               "application (both frames uploaded, the search, every SAD downloaded, the best vector of each block "
               "picked by the host; the paper's application, an encoder, is not rebuilt), transfer (the uploads and "
               "downloads). Rates in GSADs/s (4x4 SADs)."});
}

}  // namespace ryoo::app
