// The pipelined convolution (pipeline.hpp): persistent buffers, chunked uploads, kernels and downloads on three
// streams ordered by events, or the same captured as one CUDA graph; and, on the same buffers, the unchunked run
// and the copy floor it is measured against.
#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

#include "harness/check.hpp"
#include "harness/measure_cuda.hpp"
#include "munch/direct_launch.cuh"
#include "munch/pipeline.hpp"

namespace munch::gpu {

PinnedFloats::PinnedFloats(std::size_t count) : count_(count) {
    void* p = nullptr;
    harness::check(cudaMallocHost(&p, sizeof(float) * std::max<std::size_t>(count, 1)), "allocate pinned host memory");
    data_ = static_cast<float*>(p);
}

PinnedFloats::~PinnedFloats() { cudaFreeHost(data_); }

PinnedFloats& PinnedFloats::operator=(PinnedFloats&& other) noexcept {
    if (this != &other) {
        cudaFreeHost(data_);
        data_ = other.data_;
        count_ = other.count_;
        other.data_ = nullptr;
        other.count_ = 0;
    }
    return *this;
}

ConvolutionPipeline::Streams::Streams() {
    for (auto& stream : s) harness::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "create a pipeline stream");
}

ConvolutionPipeline::Streams::~Streams() {
    for (auto stream : s)
        if (stream) cudaStreamDestroy(stream);
}

ConvolutionPipeline::Events::Events(std::size_t count) : e(count, nullptr) {
    for (auto& event : e) harness::check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "create a pipeline event");
}

ConvolutionPipeline::Events::~Events() {
    for (auto event : e)
        if (event) cudaEventDestroy(event);
}

/// The captured pipeline.
struct ConvolutionPipeline::GraphHolder {
    /// Captures what @p enqueue puts on @p stream (and the streams it forks) and replays it once.
    GraphHolder(cudaStream_t stream, const std::function<void()>& enqueue) : graph(stream, enqueue) {}
    harness::Graph graph;  ///< the graph and its executable instance
};

namespace {

/// The padded taps per launch and the padded filter length of a filter of @p w taps (the direct variant's).
long long padded_length(std::size_t w, int p) { return (static_cast<long long>(w) + p - 1) / p * p; }

}  // namespace

harness::DevicePlan ConvolutionPipeline::plan(std::size_t n, std::size_t w) {
    const int p = direct_chunk_taps(static_cast<long long>(w));
    const auto taps = static_cast<std::size_t>(padded_length(w, p));
    const std::size_t groups = (n + w - 1 + 3) / 4;
    harness::DevicePlan plan;
    plan.add<float>("the padded input", 4 * groups + taps + 8).add<float>("the padded taps", taps).add<float>("the output", 4 * groups);
    return plan;
}

// [pipeline-setup-begin]
ConvolutionPipeline::ConvolutionPipeline(std::size_t n, const std::vector<float>& filter, const PipelineSettings& settings)
    : n_(n), w_(filter.size()), events_(2 * std::max<std::size_t>(settings.chunks, 1) + 2) {
    if (n_ == 0 || w_ == 0) throw std::invalid_argument("the pipelined convolution needs a signal and a filter");
    if (settings.chunks == 0) throw std::invalid_argument("the pipelined convolution needs one chunk at least");
    taps_per_launch_ = direct_chunk_taps(static_cast<long long>(w_));
    padded_taps_ = padded_length(w_, taps_per_launch_);
    groups_ = static_cast<long long>((n_ + w_ - 1 + 3) / 4);
    plan_ = plan_pipeline(n_, w_, static_cast<std::size_t>(direct_reach(taps_per_launch_, padded_taps_)), settings.chunks);
    // The device arrays of the direct variant; the padded input is zeroed once (the uploads write the signal's
    // positions only, so its padding stays zero across calls).
    const auto input_floats = static_cast<std::size_t>(4 * groups_ + padded_taps_ + 8);
    input_ = DeviceFloats(input_floats);
    out_ = DeviceFloats(static_cast<std::size_t>(4 * groups_));
    std::vector<float> taps(filter.rbegin(), filter.rend());
    taps.resize(static_cast<std::size_t>(padded_taps_), Convolve::neutral_tap());
    taps_ = uploaded(taps, streams_.s[0]);
    harness::check(cudaMemsetAsync(input_.get(), 0, sizeof(float) * input_floats, streams_.s[0]), "zero the padded input");
    harness::check(cudaStreamSynchronize(streams_.s[0]), "wait for the pipeline's buffers");
    host_in_ = PinnedFloats(n_);
    host_out_ = PinnedFloats(n_ + w_ - 1);
    std::memset(host_in_.get(), 0, sizeof(float) * n_);
    for (const PipelineChunk& c : plan_)
        chunk_blocks_.push_back(direct_launch_for<TapsInConstant>(taps_per_launch_, static_cast<long long>(c.groups)).blocks);
    const DirectLaunch whole = direct_launch_for<TapsInConstant>(taps_per_launch_, groups_);
    launch_ = whole.launch;
    whole_blocks_ = whole.blocks;
    if (settings.graph) graph_ = std::make_unique<GraphHolder>(streams_.s[0], [this] { enqueue_chunked(); });
}
// [pipeline-setup-end]

ConvolutionPipeline::~ConvolutionPipeline() {
    // Nothing may still run on the buffers when they are freed (a destructor cannot report an error).
    for (auto stream : streams_.s)
        if (stream) cudaStreamSynchronize(stream);
}

std::vector<float> ConvolutionPipeline::result() const {
    return std::vector<float>(host_out_.get(), host_out_.get() + host_out_.size());
}

void ConvolutionPipeline::upload_taps(int first, cudaStream_t stream) const {
    TapsInConstant::upload(taps_.get() + first, taps_per_launch_, stream);
}

void ConvolutionPipeline::launch(std::size_t first_group, std::size_t groups, unsigned blocks, bool taps_loaded,
                                 cudaStream_t stream) const {
    // As DirectConvolution::run: one launch per chunk of taps, each after its taps are in constant memory (a
    // filter of one chunk of taps: loaded once before, @p taps_loaded); a launch after the first adds its sum
    // to the output. Output group q of the whole output is group q - first_group of this launch, reading the
    // padded input from float4 q on.
    const auto* x = reinterpret_cast<const float4*>(input_.get()) + first_group;
    auto* out = reinterpret_cast<float4*>(out_.get()) + first_group;
    for (int first = 0; first < padded_taps_; first += taps_per_launch_) {
        if (!taps_loaded || padded_taps_ > taps_per_launch_) upload_taps(first, stream);
        launch_(x + first / 4, static_cast<long long>(groups), out, first > 0, blocks, stream);
    }
}

// [pipeline-enqueue-begin]
void ConvolutionPipeline::enqueue_chunked() {
    const cudaStream_t up = streams_.s[0], compute = streams_.s[1], down = streams_.s[2];
    cudaEvent_t fork = events_.e[0], join = events_.e[1];
    harness::check(cudaEventRecord(fork, up), "fork the pipeline's streams");
    harness::check(cudaStreamWaitEvent(compute, fork, 0), "fork the kernels' stream");
    harness::check(cudaStreamWaitEvent(down, fork, 0), "fork the downloads' stream");
    // The taps into constant memory first (every chunk's kernels read them; a filter longer than one launch's
    // taps reloads its chunks of taps before each launch instead).
    const bool one_launch = padded_taps_ == taps_per_launch_;
    if (one_launch) upload_taps(0, compute);
    for (std::size_t k = 0; k < plan_.size(); ++k) {
        const PipelineChunk& c = plan_[k];
        cudaEvent_t uploaded = events_.e[2 + 2 * k], computed = events_.e[3 + 2 * k];
        // Upload: the chunk's piece of the signal, to its padded position (w - 1 leading zeros). The uploads are
        // in order on one stream, so when this one is done so are all before it (the chunk's halo).
        if (c.copy_count > 0)
            harness::check(cudaMemcpyAsync(input_.get() + (w_ - 1) + c.copy_first, host_in_.get() + c.copy_first,
                                           sizeof(float) * c.copy_count, cudaMemcpyHostToDevice, up),
                           "upload a chunk of the signal");
        harness::check(cudaEventRecord(uploaded, up), "mark a chunk uploaded");
        // Compute: after its upload, beside the next chunk's upload and the previous chunk's download.
        harness::check(cudaStreamWaitEvent(compute, uploaded, 0), "order a chunk's kernels after its upload");
        launch(c.first_group, c.groups, chunk_blocks_[k], one_launch, compute);
        harness::check(cudaEventRecord(computed, compute), "mark a chunk computed");
        // Download: the chunk's outputs, once its kernels are done.
        harness::check(cudaStreamWaitEvent(down, computed, 0), "order a chunk's download after its kernels");
        harness::check(cudaMemcpyAsync(host_out_.get() + c.out_first, out_.get() + c.out_first, sizeof(float) * c.out_count,
                                       cudaMemcpyDeviceToHost, down),
                       "download a chunk of the output");
    }
    // Join: the origin stream waits for the last download (which waited for the last kernels).
    harness::check(cudaEventRecord(join, down), "join the pipeline's streams");
    harness::check(cudaStreamWaitEvent(up, join, 0), "join the downloads' stream");
}
// [pipeline-enqueue-end]

void ConvolutionPipeline::run() {
    if (graph_) graph_->graph.launch(streams_.s[0]);
    else enqueue_chunked();
    harness::check(cudaStreamSynchronize(streams_.s[0]), "finish the pipelined convolution");
}

void ConvolutionPipeline::run_unchunked() {
    const cudaStream_t s = streams_.s[0];
    harness::check(cudaMemcpyAsync(input_.get() + (w_ - 1), host_in_.get(), sizeof(float) * n_, cudaMemcpyHostToDevice, s),
                   "upload the signal");
    launch(0, static_cast<std::size_t>(groups_), whole_blocks_, false, s);
    harness::check(cudaMemcpyAsync(host_out_.get(), out_.get(), sizeof(float) * (n_ + w_ - 1), cudaMemcpyDeviceToHost, s),
                   "download the output");
    harness::check(cudaStreamSynchronize(s), "finish the unchunked convolution");
}

// [copy-floor-begin]
void ConvolutionPipeline::copy_floor(bool overlapped) {
    const cudaStream_t up = streams_.s[0], down = overlapped ? streams_.s[2] : streams_.s[0];
    cudaEvent_t fork = events_.e[0], join = events_.e[1];
    if (overlapped) {
        harness::check(cudaEventRecord(fork, up), "fork the copy streams");
        harness::check(cudaStreamWaitEvent(down, fork, 0), "fork the download stream");
    }
    harness::check(cudaMemcpyAsync(input_.get() + (w_ - 1), host_in_.get(), sizeof(float) * n_, cudaMemcpyHostToDevice, up),
                   "upload the signal");
    harness::check(cudaMemcpyAsync(host_out_.get(), out_.get(), sizeof(float) * (n_ + w_ - 1), cudaMemcpyDeviceToHost, down),
                   "download the output");
    if (overlapped) {
        harness::check(cudaEventRecord(join, down), "join the copy streams");
        harness::check(cudaStreamWaitEvent(up, join, 0), "join the download stream");
    }
    harness::check(cudaStreamSynchronize(up), "finish the copies");
}
// [copy-floor-end]

}  // namespace munch::gpu
