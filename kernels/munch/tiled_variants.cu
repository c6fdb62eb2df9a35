// The tiled kernels' policies, their host driver, and the convolution and rolling-ball variants built on
// them.
#include <algorithm>
#include <string>
#include <vector>

#include "munch/device_buffer.hpp"
#include "munch/tap_sources.cuh"
#include "munch/tiled_window.cuh"
#include "munch/variants.hpp"

namespace munch::gpu {

namespace {

/// Taps per stage: a power of two, at least R, at most 1024 (it then divides the constant chunk).
int stage_taps_for(long long width, int outputs_per_thread) {
    int k = outputs_per_thread;
    while (k < width && k < 1024) k *= 2;
    return k;
}

/// The taps padded with the operation's neutral tap to a whole number of stages.
template <class Op>
std::vector<float> padded_taps(std::vector<float> taps, int stage_taps) {
    const std::size_t stages = (taps.size() + stage_taps - 1) / stage_taps;
    taps.resize(stages * stage_taps, Op::neutral_tap());
    return taps;
}

// [window-pass-begin]
/// One window pass (window_ops.hpp) of x into out: the launches over the filter chunks of the policy.
template <class Op, class TapSource, int R>
void window_pass(const float* x, long long n, const float* taps, int padded_count, int stage_taps, long long shift,
                 float* out, long long out_len, cudaStream_t stream) {
    constexpr int T = tiled_threads * R;
    const int shared_floats = tile_floats<R>(T, stage_taps) + (TapSource::in_shared ? stage_taps : 0);
    const auto blocks = static_cast<unsigned>((out_len + T - 1) / T);
    for (int first = 0; first < padded_count; first += TapSource::launch_capacity) {
        const int count = std::min(TapSource::launch_capacity, padded_count - first);
        TapSource::upload(taps + first, count, stream);
        tiled_window_kernel<Op, TapSource, R><<<blocks, tiled_threads, sizeof(float) * shared_floats, stream>>>(
            x, n, taps + first, count, stage_taps, first - shift, out, out_len, first > 0);
        harness::check(cudaGetLastError(), "launch the tiled window kernel");
    }
}
// [window-pass-end]

/// The variant name the policies compose: "tiled-", the taps policy, "-r" and the outputs per thread.
template <class TapSource, int R>
std::string tiled_name() {
    return std::string("tiled-") + TapSource::name + "-r" + std::to_string(R);
}

/// The full convolution as one window pass with the reversed filter.
template <class TapSource, int R>
class TiledConvolution final : public Variant {
public:
    harness::DevicePlan plan(std::size_t n, std::size_t w) const override {
        const auto stage = static_cast<std::size_t>(stage_taps_for(static_cast<long long>(w), R));
        harness::DevicePlan p;
        p.add<float>("the signal", n).add<float>("the padded filter", (w + stage - 1) / stage * stage).add<float>("the output", n + w - 1);
        return p;
    }
    void prepare(const std::vector<float>& signal, const std::vector<float>& filter, cudaStream_t stream) override {
        n_ = static_cast<long long>(signal.size());
        w_ = static_cast<long long>(filter.size());
        stage_ = stage_taps_for(w_, R);
        // P[i] = sum_k M[i-k] N[k] is the window form with the reversed filter and shift w - 1.
        const auto taps = padded_taps<Convolve>(std::vector<float>(filter.rbegin(), filter.rend()), stage_);
        padded_ = static_cast<int>(taps.size());
        signal_ = uploaded(signal, stream);
        taps_ = uploaded(taps, stream);
        out_ = DeviceFloats(static_cast<std::size_t>(n_ + w_ - 1));
    }
    void run(cudaStream_t stream) override {
        window_pass<Convolve, TapSource, R>(signal_.get(), n_, taps_.get(), padded_, stage_, w_ - 1, out_.get(), n_ + w_ - 1,
                                            stream);
    }
    std::vector<float> result(cudaStream_t stream) const override {
        return out_.download(static_cast<std::size_t>(n_ + w_ - 1), stream);
    }

private:
    long long n_ = 0, w_ = 0;
    int stage_ = 0, padded_ = 0;
    DeviceFloats signal_, taps_, out_;
};

/// The rolling ball as two window passes: erosion, then dilation.
template <class TapSource, int R>
class TiledRollingBall final : public Variant {
public:
    harness::DevicePlan plan(std::size_t n, std::size_t w) const override {
        const auto stage = static_cast<std::size_t>(stage_taps_for(static_cast<long long>(w), R));
        harness::DevicePlan p;
        p.add<float>("the signal", n)
            .add<float>("the padded erosion and dilation taps", (w + stage - 1) / stage * stage, 2)
            .add<float>("the eroded signal and the output", n, 2);
        return p;
    }
    void prepare(const std::vector<float>& signal, const std::vector<float>& ball, cudaStream_t stream) override {
        n_ = static_cast<long long>(signal.size());
        w_ = static_cast<long long>(ball.size());
        stage_ = stage_taps_for(w_, R);
        // Erosion: taps L, dilation: taps L reversed (window_ops.hpp); both padded with -infinity.
        const auto erosion = padded_taps<Erode>(ball, stage_);
        const auto dilation = padded_taps<Dilate>(std::vector<float>(ball.rbegin(), ball.rend()), stage_);
        padded_ = static_cast<int>(erosion.size());
        signal_ = uploaded(signal, stream);
        erosion_taps_ = uploaded(erosion, stream);
        dilation_taps_ = uploaded(dilation, stream);
        eroded_ = DeviceFloats(static_cast<std::size_t>(n_));
        out_ = DeviceFloats(static_cast<std::size_t>(n_));
    }
    // [rolling-ball-run-begin]
    void run(cudaStream_t stream) override {
        const long long r = (w_ - 1) / 2;
        window_pass<Erode, TapSource, R>(signal_.get(), n_, erosion_taps_.get(), padded_, stage_, r, eroded_.get(), n_, stream);
        window_pass<Dilate, TapSource, R>(eroded_.get(), n_, dilation_taps_.get(), padded_, stage_, r, out_.get(), n_, stream);
    }
    // [rolling-ball-run-end]
    std::vector<float> result(cudaStream_t stream) const override { return out_.download(static_cast<std::size_t>(n_), stream); }

private:
    long long n_ = 0, w_ = 0;
    int stage_ = 0, padded_ = 0;
    DeviceFloats signal_, erosion_taps_, dilation_taps_, eroded_, out_;
};

/// The registry entry of one tiled variant of @p Family.
template <template <class, int> class Family, class TapSource, int R>
VariantEntry tiled_entry(const std::string& what) {
    return {tiled_name<TapSource, R>(),
            what + ": shared-memory tile with halo, taps in " + TapSource::name + " memory, " + std::to_string(R) +
                " output(s) per thread",
            [] { return std::unique_ptr<Variant>(new Family<TapSource, R>()); }};
}

}  // namespace

std::vector<VariantEntry> tiled_convolution_variants() {
    return {tiled_entry<TiledConvolution, TapsInConstant, 1>("convolution"),
            tiled_entry<TiledConvolution, TapsInConstant, 16>("convolution"),
            tiled_entry<TiledConvolution, TapsInShared, 16>("convolution")};
}

std::vector<VariantEntry> tiled_rolling_ball_variants() {
    return {tiled_entry<TiledRollingBall, TapsInConstant, 16>("rolling ball (erosion, then dilation)"),
            tiled_entry<TiledRollingBall, TapsInShared, 16>("rolling ball (erosion, then dilation)")};
}

}  // namespace munch::gpu
