// The direct (streaming) convolution for short filters: the host driver of direct_window.cuh, which
// pads the input once so that every 16-byte load and store is aligned and no bound is tested inside the
// kernel, and sizes the grid to the GPU.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "munch/device_buffer.hpp"
#include "munch/direct_window.cuh"
#include "munch/tap_sources.cuh"
#include "munch/variants.hpp"

namespace munch::gpu {

namespace {

/// Groups of four outputs per thread and grid step of the direct variant (16 outputs per thread).
constexpr int direct_groups_per_thread = 4;

/// The chunk sizes (taps per launch) the direct kernel is instantiated for: each a multiple of four from 4
/// on, so that a chunk after the first starts on a 16-byte boundary, and close enough together that a
/// short filter is padded by few taps (9 taps run as 12, not 16).
constexpr int direct_chunk_sizes[] = {1, 2, 4, 8, 12, 16, 24, direct_max_taps};

/// The padded taps per launch for a filter of @p width taps: the smallest chunk size that holds it, or
/// direct_max_taps (a longer filter takes several launches of that many).
int direct_chunk_taps(long long width) {
    for (int p : direct_chunk_sizes)
        if (p >= width) return p;
    return direct_max_taps;
}

/// The kernel for one chunk size, with the grid that fills the GPU once: as many blocks as fit on it
/// at once (from the occupancy of this instantiation), fewer when the output is small. Found in
/// prepare(), so that run() only launches.
struct DirectLaunch {
    /// Launches the instantiation on @p blocks blocks.
    void (*launch)(const float4* x, long long groups, float4* out, bool accumulate, unsigned blocks, cudaStream_t stream) = nullptr;
    unsigned blocks = 1;  ///< the grid
};

/// The launch of the instantiation for @p P taps per launch.
template <class TapSource, int P>
void launch_direct(const float4* x, long long groups, float4* out, bool accumulate, unsigned blocks, cudaStream_t stream) {
    direct_window_kernel<Convolve, TapSource, P, direct_groups_per_thread><<<blocks, direct_threads, 0, stream>>>(x, groups, out, accumulate);
    harness::check(cudaGetLastError(), "launch the direct window kernel");
}

/// The launch and grid of the instantiation for @p P taps over @p groups output groups.
template <class TapSource, int P>
DirectLaunch direct_launch(long long groups) {
    int device = 0, sms = 0, per_sm = 0;
    harness::check(cudaGetDevice(&device), "query the current device");
    harness::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "query the SM count");
    harness::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                       &per_sm, direct_window_kernel<Convolve, TapSource, P, direct_groups_per_thread>, direct_threads, 0),
                   "query the direct kernel's occupancy");
    const long long per_block = static_cast<long long>(direct_threads) * direct_groups_per_thread;
    const long long needed = (groups + per_block - 1) / per_block;
    const long long resident = static_cast<long long>(sms) * std::max(per_sm, 1);
    return {launch_direct<TapSource, P>, static_cast<unsigned>(std::max(1LL, std::min(needed, resident)))};
}

/// The launch for chunks of @p p taps (one of direct_chunk_sizes).
template <class TapSource>
DirectLaunch direct_launch_for(int p, long long groups) {
    switch (p) {
        case 1: return direct_launch<TapSource, 1>(groups);
        case 2: return direct_launch<TapSource, 2>(groups);
        case 4: return direct_launch<TapSource, 4>(groups);
        case 8: return direct_launch<TapSource, 8>(groups);
        case 12: return direct_launch<TapSource, 12>(groups);
        case 16: return direct_launch<TapSource, 16>(groups);
        case 24: return direct_launch<TapSource, 24>(groups);
        case direct_max_taps: return direct_launch<TapSource, direct_max_taps>(groups);
        default: throw std::logic_error("direct convolution: no kernel for " + std::to_string(p) + " taps per launch");
    }
}

/// The full convolution P[i] = sum_k M[i-k] N[k] as the window form with the reversed filter over the
/// signal padded with w - 1 leading zeros: output i then reads padded inputs i .. i + w - 1.
template <class TapSource>
class DirectConvolution final : public Variant {
public:
    harness::DevicePlan plan(std::size_t n, std::size_t w) const override {
        const auto chunk = static_cast<std::size_t>(direct_chunk_taps(static_cast<long long>(w)));
        const std::size_t taps = (w + chunk - 1) / chunk * chunk, groups = (n + w - 1 + 3) / 4;
        harness::DevicePlan p;
        p.add<float>("the padded input", 4 * groups + taps + 8).add<float>("the padded taps", taps).add<float>("the output", 4 * groups);
        return p;
    }
    void prepare(const std::vector<float>& signal, const std::vector<float>& filter, cudaStream_t stream) override {
        n_ = static_cast<long long>(signal.size());
        w_ = static_cast<long long>(filter.size());
        chunk_ = direct_chunk_taps(w_);
        std::vector<float> taps(filter.rbegin(), filter.rend());
        taps.resize((taps.size() + chunk_ - 1) / chunk_ * chunk_, Convolve::neutral_tap());
        padded_taps_ = static_cast<int>(taps.size());
        groups_ = (n_ + w_ - 1 + 3) / 4;
        // Zeros (Convolve's padding: all bytes zero) before, the signal at w - 1, zeros after it up to the
        // last input the last group of the last chunk reads.
        const auto input_floats = static_cast<std::size_t>(4 * groups_ + padded_taps_ + 8);
        input_ = DeviceFloats(input_floats);
        harness::check(cudaMemsetAsync(input_.get(), 0, sizeof(float) * input_floats, stream), "zero the padded input");
        harness::check(cudaMemcpyAsync(input_.get() + (w_ - 1), signal.data(), sizeof(float) * signal.size(), cudaMemcpyHostToDevice,
                                       stream),
                       "upload the signal into the padded input");
        harness::check(cudaStreamSynchronize(stream), "wait for the padded input");
        taps_ = uploaded(taps, stream);
        out_ = DeviceFloats(static_cast<std::size_t>(4 * groups_));
        launch_ = direct_launch_for<TapSource>(chunk_, groups_);
    }
    // [direct-run-begin]
    void run(cudaStream_t stream) override {
        const auto* x = reinterpret_cast<const float4*>(input_.get());
        auto* out = reinterpret_cast<float4*>(out_.get());
        for (int first = 0; first < padded_taps_; first += chunk_) {
            TapSource::upload(taps_.get() + first, chunk_, stream);
            // A chunk starts at a multiple of four taps (or is the only one), so its inputs stay aligned.
            launch_.launch(x + first / 4, groups_, out, first > 0, launch_.blocks, stream);
        }
    }
    // [direct-run-end]
    std::vector<float> result(cudaStream_t stream) const override {
        return out_.download(static_cast<std::size_t>(n_ + w_ - 1), stream);
    }

private:
    long long n_ = 0, w_ = 0, groups_ = 0;
    int chunk_ = 1, padded_taps_ = 0;
    DeviceFloats input_, taps_, out_;
    DirectLaunch launch_;
};

}  // namespace

std::vector<VariantEntry> direct_convolution_variants() {
    const std::string r = std::to_string(4 * direct_groups_per_thread);
    return {{std::string("direct-") + TapsInConstant::name + "-r" + r,
             "convolution for short filters: no shared-memory tile, 16-byte loads and stores, taps from constant memory in "
             "registers, " + r + " outputs per thread, a grid sized to the GPU",
             [] { return std::unique_ptr<Variant>(new DirectConvolution<TapsInConstant>()); }}};
}

}  // namespace munch::gpu
