// `ryoo h264`: H.264 motion estimation (the SAD search of every 4x4 block over a +-R window, the 8x8 and
// 16x16 SADs summed from them). Synthetic frames with known macroblock shifts; the single-thread CPU search
// (timed when asked); every GPU variant's SADs compared with the CPU's exactly before any timing; then the
// GPU's search (kernel), its application (frames uploaded, search, SADs downloaded, best vectors picked
// by the host) and its transfers. One CSV row per kept sample (kind app_bench).
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/device_memory.hpp"
#include "harness/measure_cuda.hpp"
#include "ryoo/app/commands.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/h264.hpp"
#include "ryoo/cuda/app_run.hpp"
#include "ryoo/h264_math.hpp"

namespace ryoo::app {
namespace {

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

}  // namespace

int command_h264(const Args& args) {
    AppRun run(args, "ryoo h264", {{"--width"}, {"--height"}, {"--range"}, {"--noise"}, {"--seed"}});
    if (run.help()) {
        run.print_help("ryoo h264 [--size small|large] [--width W] [--height H] [--range R] [--noise N] [--seed 1] [shared options]\n"
                       "  H.264 motion estimation: the sum of absolute differences (SAD) of every 4x4 block of a current\n"
                       "  frame at every vector of a +-R window of a reference frame (edge pixels clamped), and the 8x8 and\n"
                       "  16x16 SADs summed from them. Synthetic frames (small: 176 x 144, large: 1280 x 720; R = 16; the\n"
                       "  current frame is the reference shifted per macroblock plus noise of +-2). The CPU searches on one\n"
                       "  thread; every GPU variant's SADs (all sizes) must equal the CPU's exactly before it is timed.\n"
                       "  Parts: kernel (the 4x4 SADs and the larger-block sums), application (both frames uploaded, the\n"
                       "  search, every SAD downloaded, the best vector of each block picked by the host; the paper's\n"
                       "  application, an encoder, is not rebuilt), transfer (the uploads and downloads). Rates in GSADs/s\n"
                       "  (4x4 SADs).");
        return 0;
    }
    const std::string size = run.options().choice("--size", {"small", "large"}, "small");
    const int width = static_cast<int>(run.options().integer("--width", size == "small" ? 176 : 1280, 16, 7680));
    const int height = static_cast<int>(run.options().integer("--height", size == "small" ? 144 : 720, 16, 4320));
    if (width % 16) throw run.options().error("--width", "must be a multiple of 16");
    if (height % 16) throw run.options().error("--height", "must be a multiple of 16");
    const int range = static_cast<int>(run.options().integer("--range", 16, 1, 32));
    const int noise = static_cast<int>(run.options().integer("--noise", 2, 0, 16));
    const auto seed = static_cast<std::uint64_t>(run.options().integer("--seed", 1, 0));
    run.start(h264_variants().name_list());
    run.open("h264");
    const H264Frames f = synthetic_frames(width, height, range, noise, seed);
    const double sads = static_cast<double>(f.blocks4()) * h264_positions(range);
    const int mbs = f.mb_columns() * f.mb_rows();
    H264Sads reference = empty_sads(f);
    const auto search = [&](H264Sads& s) {
        h264_sad4_cpu(f, s);
        h264_larger_cpu(f, s);
    };
    if (run.cpu_samples() > 0) {
        const auto kernel = time_cpu(run, [&] { search(reference); });
        std::size_t picked = 0;
        const auto application = time_cpu(run, [&] {
            search(reference);
            picked = pick_vectors(f, reference);
        });
        run.record("cpu", "", "kernel", kernel, sads, "SADs", true, "reference");
        run.record("cpu", "", "application", application, sads, "SADs", picked > 0, "reference");
    } else {
        search(reference);
    }
    harness::DeviceMemory memory;
    const cudaStream_t s = run.stream();
    H264DeviceFrames frames(width, height);
    std::uint16_t* d4 = memory.allocate<std::uint16_t>(reference.sad4.size(), "allocate the 4x4 SADs");
    std::uint16_t* d8 = memory.allocate<std::uint16_t>(reference.sad8.size(), "allocate the 8x8 SADs");
    std::uint16_t* d16 = memory.allocate<std::uint16_t>(reference.sad16.size(), "allocate the 16x16 SADs");
    H264Sads got = empty_sads(f);
    const auto download = [&] {
        harness::check(cudaMemcpyAsync(got.sad4.data(), d4, got.sad4.size() * 2, cudaMemcpyDeviceToHost, s), "download the 4x4 SADs");
        harness::check(cudaMemcpyAsync(got.sad8.data(), d8, got.sad8.size() * 2, cudaMemcpyDeviceToHost, s), "download the 8x8 SADs");
        harness::check(cudaMemcpyAsync(got.sad16.data(), d16, got.sad16.size() * 2, cudaMemcpyDeviceToHost, s), "download the 16x16 SADs");
    };
    const double bytes = 2.0 * static_cast<double>(f.reference.size()) +
                         2.0 * static_cast<double>(got.sad4.size() + got.sad8.size() + got.sad16.size());
    for (const auto& name : run.variants()) {
        const H264Variant& v = h264_variants().find(name);
        const auto gpu_search = [&] {
            v.run(frames, range, d4, s);
            h264_larger(d4, width, mbs, range, d8, d16, s);
        };
        frames.upload(f.current.data(), f.reference.data(), s);
        harness::check(cudaMemsetAsync(d4, 0xff, got.sad4.size() * 2, s), "poison the 4x4 SADs");
        harness::check(cudaMemsetAsync(d8, 0xff, got.sad8.size() * 2, s), "poison the 8x8 SADs");
        harness::check(cudaMemsetAsync(d16, 0xff, got.sad16.size() * 2, s), "poison the 16x16 SADs");
        gpu_search();
        download();
        harness::check(cudaStreamSynchronize(s), "run the checked search");
        const long long wrong = differing_sads(got, reference);
        if (wrong != 0) {
            run.failed(name, std::to_string(wrong) + " SADs differ from the CPU's");
            continue;
        }
        const std::string checked = "all SADs exact";
        if (run.times("kernel"))
            run.record(name, "", "kernel", harness::measure(s, run.gpu(), run.monitor(), gpu_search), sads, "SADs", true, checked);
        if (run.times("application")) {
            std::size_t picked = 0;
            const auto m = harness::measure_wall(s, run.gpu(), run.monitor(), [&] {
                frames.upload(f.current.data(), f.reference.data(), s);
                gpu_search();
                download();
                harness::check(cudaStreamSynchronize(s), "finish the search");
                picked = pick_vectors(f, got);
            });
            run.record(name, "", "application", m, sads, "SADs", picked > 0 && got == reference, checked);
        }
        if (run.times("transfer")) {
            const auto m = harness::measure(s, run.gpu(), run.monitor(), [&] {
                frames.upload(f.current.data(), f.reference.data(), s);
                download();
            });
            run.record(name, "", "transfer", m, bytes, "B", true, "copies");
        }
    }
    return run.finish();
}

}  // namespace ryoo::app
