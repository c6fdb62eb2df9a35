/// @file pipeline.hpp
/// @brief The pipelined convolution: persistent pinned host buffers and device buffers for one signal length
/// and filter, the signal streamed to the GPU in chunks on one stream while the direct kernel computes the
/// chunks already there on a second and the finished outputs stream back on a third, so that both copy
/// directions and the kernels overlap; optionally the whole pipeline replayed as one CUDA graph. Beside it, on
/// the same buffers, the two references it is measured against: the same work without chunks (one upload, the
/// kernels, one download on one stream) and the copies alone (the same bytes up and down, one after the other
/// or both directions at once), the floor the pipeline can approach.
///
/// Every output is computed by the direct variant's kernel (direct_window.cuh) with the same taps per launch,
/// the same padding and the same order of its terms as `direct-constant-r16`, so the pipelined output equals
/// that variant's bit for bit. The chunk arithmetic, the filter's halo at the chunk edges included, is the host
/// function plan_pipeline (src/munch/pipeline_plan.hpp), tested on the CPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "harness/device_budget.hpp"
#include "munch/device_buffer.hpp"
#include "munch/pipeline_plan.hpp"

namespace munch::gpu {

/// Page-locked host memory (cudaMallocHost), freed with its owner: what the copy engines read and write
/// directly, without a staging copy through pageable memory.
class PinnedFloats {
public:
    PinnedFloats() = default;
    /// @p count floats (at least one).
    explicit PinnedFloats(std::size_t count);
    ~PinnedFloats();
    PinnedFloats(const PinnedFloats&) = delete;
    PinnedFloats& operator=(const PinnedFloats&) = delete;
    /// Takes over @p other's memory.
    PinnedFloats(PinnedFloats&& other) noexcept : data_(other.data_), count_(other.count_) {
        other.data_ = nullptr;
        other.count_ = 0;
    }
    /// Frees the own memory and takes over @p other's.
    PinnedFloats& operator=(PinnedFloats&& other) noexcept;
    /// The host pointer.
    float* get() const { return data_; }
    /// How many floats.
    std::size_t size() const { return count_; }

private:
    float* data_ = nullptr;
    std::size_t count_ = 0;
};

/// How the pipeline runs.
struct PipelineSettings {
    std::size_t chunks = 16;  ///< pieces the signal is streamed in (fewer when the output has fewer groups)
    bool graph = false;       ///< capture the pipeline once as a CUDA graph and replay it in run()
};

/// One signal length and filter, its buffers resident between calls.
class ConvolutionPipeline {
public:
    /// What the pipeline allocates on the device for @p n samples and @p w taps (the direct variant's
    /// arrays: the padded input, the padded taps, the output).
    static harness::DevicePlan plan(std::size_t n, std::size_t w);
    /// Allocates the device and pinned host buffers for signals of @p n samples, uploads @p filter, creates
    /// the streams and, with settings.graph, captures the pipeline (one untimed replay).
    ConvolutionPipeline(std::size_t n, const std::vector<float>& filter, const PipelineSettings& settings);
    ~ConvolutionPipeline();
    ConvolutionPipeline(const ConvolutionPipeline&) = delete;
    ConvolutionPipeline& operator=(const ConvolutionPipeline&) = delete;

    /// The pinned input the caller writes the signal into (n floats).
    float* input() { return host_in_.get(); }
    /// The pinned output (n + w - 1 floats), complete after run() or run_unchunked() returns.
    const float* output() const { return host_out_.get(); }
    /// The output as a vector (a copy of output()).
    std::vector<float> result() const;
    /// The chunks of this pipeline, as planned.
    const std::vector<PipelineChunk>& chunks() const { return plan_; }
    /// The stream the pipeline starts and ends on (the others fork from it and join it again).
    cudaStream_t stream() const { return streams_.s[0]; }

    /// The convolution of input(): chunk k's upload, kernels and download in order on three streams (the
    /// uploads of later chunks overlapping the kernels and downloads of earlier ones), or the captured graph;
    /// returns when the last output is in output().
    void run();
    /// The same convolution without chunks on one stream: upload the whole signal, run the kernels, download
    /// the whole output (persistent pinned buffers, no overlap).
    void run_unchunked();
    /// The copy floor of the same bytes: the signal up and the output down, one after the other on one stream
    /// (@p overlapped false) or both at once on two (true); no kernel runs.
    void copy_floor(bool overlapped);

private:
    /// A launch of the direct kernel instantiated for this filter's taps per launch.
    using Launch = void (*)(const float4* x, long long groups, float4* out, bool accumulate, unsigned blocks,
                            cudaStream_t stream);
    void enqueue_chunked();
    void upload_taps(int first, cudaStream_t stream) const;
    void launch(std::size_t first_group, std::size_t groups, unsigned blocks, bool taps_loaded, cudaStream_t stream) const;

    /// Streams that do not wait for the legacy default stream, destroyed with their owner.
    struct Streams {
        cudaStream_t s[3] = {};  ///< uploads (and the origin), kernels, downloads
        Streams();
        ~Streams();
    };
    /// Events without timing (only ordering), destroyed with their owner.
    struct Events {
        std::vector<cudaEvent_t> e;
        explicit Events(std::size_t count);
        ~Events();
    };

    std::size_t n_, w_;
    int taps_per_launch_ = 0;
    long long padded_taps_ = 0, groups_ = 0;
    std::vector<PipelineChunk> plan_;
    Launch launch_ = nullptr;             // the kernel's launch (found once, so that a run only launches)
    std::vector<unsigned> chunk_blocks_;  // the grid of each chunk's launches
    unsigned whole_blocks_ = 1;           // the grid of run_unchunked()'s launches
    DeviceFloats input_;                  // the padded input: zeros, the signal at w - 1, zeros
    DeviceFloats taps_;                   // the reversed filter padded to whole launches
    DeviceFloats out_;                    // 4 groups floats
    PinnedFloats host_in_, host_out_;
    Streams streams_;
    Events events_;                       // fork, per chunk uploaded and computed, join
    struct GraphHolder;
    std::unique_ptr<GraphHolder> graph_;
};

}  // namespace munch::gpu
