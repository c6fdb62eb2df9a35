// The direct (streaming) convolution for short filters: the host driver of direct_window.cuh, which
// pads the input once so that every 16-byte load and store is aligned and no bound is tested inside the
// kernel, and sizes the grid to the GPU.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "munch/device_buffer.hpp"
#include "munch/direct_launch.cuh"
#include "munch/variants.hpp"

namespace munch::gpu {

namespace {

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
