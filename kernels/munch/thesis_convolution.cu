// The thesis's two GPU convolutions (its chapter 4), rebuilt from its description and Listings A.3/A.4.
#include <algorithm>
#include <string>
#include <vector>

#include "munch/device_buffer.hpp"
#include "munch/thesis_layout.hpp"
#include "munch/variants.hpp"
#include "munch/window_ops.hpp"

namespace munch::gpu {

namespace {

// ---- attempt 1: one block per output, the filter sum as a block reduction ------------------------------
// No code was published; the description is: outputs over blocks, each block reduces its output's w
// products in a tree. The first version was 1.5x faster than one CPU thread; the optimisations of Harris
// ("Optimizing parallel reduction in CUDA") made it 5.2x faster again. The two are the two policies of one
// kernel. 256 threads per block as in the text.

/// Threads per block of the first attempt (as in the thesis's text).
constexpr int reduction_threads = 256;

/// The first version: one product per thread and round of 256 taps, reduced in a tree with interleaved
/// addressing (the active threads are every 2s-th, so warps diverge and shared memory conflicts), the
/// round's sum added by thread 0.
struct InterleavedTree {
    static constexpr const char* name = "interleaved";  ///< in variant names
    /// Output @p i's sum, in thread 0.
    __device__ static void reduce(float* partial, const float* signal, long long n, const float* filter, long long w,
                                  long long i, float* out) {
        const int t = threadIdx.x;
        float total = 0;
        for (long long k0 = 0; k0 < w; k0 += reduction_threads) {
            const long long k = k0 + t;
            partial[t] = k < w ? Convolve::combine(0.0f, padded_at<Convolve>(signal, n, i - k), filter[k]) : 0.0f;
            __syncthreads();
            for (int stride = 1; stride < reduction_threads; stride *= 2) {
                if (t % (2 * stride) == 0) partial[t] += partial[t + stride];
                __syncthreads();
            }
            if (t == 0) total += partial[0];
            __syncthreads();
        }
        if (t == 0) out[i] = total;
    }
};

/// Harris's optimisations: several products per thread, added while they are loaded; sequential
/// addressing (the active threads are contiguous: no divergence, no bank conflicts); the last warp without
/// barriers (today through shuffles, which need no volatile shared memory).
struct SequentialTree {
    static constexpr const char* name = "sequential";  ///< in variant names
    /// Output @p i's sum, in thread 0.
    __device__ static void reduce(float* partial, const float* signal, long long n, const float* filter, long long w,
                                  long long i, float* out) {
        float sum = 0;
        for (long long k = threadIdx.x; k < w; k += reduction_threads)
            sum = Convolve::combine(sum, padded_at<Convolve>(signal, n, i - k), filter[k]);
        partial[threadIdx.x] = sum;
        __syncthreads();
        for (int stride = reduction_threads / 2; stride > 32; stride /= 2) {
            if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
            __syncthreads();
        }
        if (threadIdx.x < 32) {
            float v = partial[threadIdx.x] + partial[threadIdx.x + 32];
            for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
            if (threadIdx.x == 0) out[i] = v;
        }
    }
};

/// Output blockIdx.x of the full convolution, sum_k M[i-k] N[k], reduced by the block as @p Tree does.
template <class Tree>
__global__ void __launch_bounds__(reduction_threads)
thesis_reduction_kernel(const float* __restrict__ signal, long long n, const float* __restrict__ filter, long long w,
                        float* __restrict__ out) {
    __shared__ float partial[reduction_threads];
    Tree::reduce(partial, signal, n, filter, w, blockIdx.x, out);
}

/// The first attempt: one block per output, reduced as @p Tree does.
template <class Tree>
class ThesisReduction final : public Variant {
public:
    harness::DevicePlan plan(std::size_t n, std::size_t w) const override {
        harness::DevicePlan p;
        p.add<float>("the signal", n).add<float>("the filter", w).add<float>("the output", n + w - 1);
        return p;
    }
    void prepare(const std::vector<float>& signal, const std::vector<float>& filter, cudaStream_t stream) override {
        n_ = static_cast<long long>(signal.size());
        w_ = static_cast<long long>(filter.size());
        signal_ = uploaded(signal, stream);
        filter_ = uploaded(filter, stream);
        out_ = DeviceFloats(static_cast<std::size_t>(n_ + w_ - 1));
    }
    void run(cudaStream_t stream) override {
        thesis_reduction_kernel<Tree><<<static_cast<unsigned>(n_ + w_ - 1), reduction_threads, 0, stream>>>(
            signal_.get(), n_, filter_.get(), w_, out_.get());
        harness::check(cudaGetLastError(), "launch the block-reduction convolution");
    }
    std::vector<float> result(cudaStream_t stream) const override {
        return out_.download(static_cast<std::size_t>(n_ + w_ - 1), stream);
    }

private:
    long long n_ = 0, w_ = 0;
    DeviceFloats signal_, filter_, out_;
};

/// The registry entry of the first attempt with the tree @p Tree.
template <class Tree>
VariantEntry reduction_entry(const std::string& what) {
    return {std::string("thesis-reduction-") + Tree::name, "the thesis's first attempt, a block of 256 threads per output: " + what,
            [] { return std::unique_ptr<Variant>(new ThesisReduction<Tree>()); }};
}

// ---- attempt 2: one thread per output, 384 filter taps per launch in constant memory -------------------
// Algorithms 6 and 7, Listings A.3 and A.4: blocks of 384 threads; the host copies 384 taps at a time into
// constant memory, launches, and waits (cudaThreadSynchronize, today cudaStreamSynchronize) before the next
// chunk; each launch adds its partial sums to P. The kernel forms P[n] = sum_k M_apron[n + k] c[k]: given
// the filter in stored order that is a correlation, so the filter is uploaded reversed (the convolution of
// Listing A.1). The filter is padded with zeros to a multiple of 384 (the listing copies 384 taps always).
/// Threads per block and taps per launch of the second attempt.
constexpr int thesis_block = static_cast<int>(thesis::block);

/// The launch's chunk of taps (Listing A.3's c_d_N).
__constant__ float c_thesis_taps[thesis_block];

// [thesis-kernel-begin]
/// One chunk of taps for outputs [b*384, b*384 + 384), added to P (Listing A.3).
__global__ void thesis_constant_kernel(const float* __restrict__ m_apron, float* __restrict__ p, int offset) {
    __shared__ float s_m[2 * thesis_block];
    __shared__ float s_p[thesis_block];
    const int t = threadIdx.x;
    const long long b = blockIdx.x;
    s_p[t] = 0;
    s_m[t] = m_apron[b * thesis_block + t + offset];
    s_m[t + thesis_block] = m_apron[(b + 1) * thesis_block + t + offset];
    __syncthreads();
    for (int i = 0; i < thesis_block; ++i) {
        s_p[t] = Convolve::combine(s_p[t], s_m[t + i], c_thesis_taps[i]);
        __syncthreads();  // as published: a barrier after every step, although no thread reads another's s_p
    }
    p[b * thesis_block + t] += s_p[t];
}
// [thesis-kernel-end]

/// The second, published attempt: a thread per output, synchronised launches per chunk of taps.
class ThesisConstant final : public Variant {
public:
    harness::DevicePlan plan(std::size_t n, std::size_t w) const override {
        harness::DevicePlan p;
        p.add<float>("the padded signal (M_apron)", thesis::conv_apron(n, w)).add<float>("the output", thesis::conv_output_array(n, w));
        return p;
    }
    void prepare(const std::vector<float>& signal, const std::vector<float>& filter, cudaStream_t stream) override {
        const std::size_t n = signal.size(), w = filter.size();
        out_len_ = thesis::conv_outputs(n, w);
        blocks_ = thesis::conv_blocks(n, w);
        chunks_ = thesis::launches(w);
        // M_apron as the listing sizes it: (w-1) zeros, the signal, (w-1) zeros and two blocks of zeros,
        // which covers the last window of the last chunk's launch.
        std::vector<float> apron(thesis::conv_apron(n, w), 0.0f);
        std::copy(signal.begin(), signal.end(), apron.begin() + static_cast<std::ptrdiff_t>(w - 1));
        std::vector<float> taps(chunks_ * thesis_block, 0.0f);
        std::copy(filter.rbegin(), filter.rend(), taps.begin());
        host_taps_ = taps;
        apron_ = uploaded(apron, stream);
        out_ = DeviceFloats(thesis::conv_output_array(n, w));
    }
    // [thesis-host-begin]
    void run(cudaStream_t stream) override {
        harness::check(cudaMemsetAsync(out_.get(), 0, sizeof(float) * out_.size(), stream), "clear P");
        for (std::size_t c = 0; c < chunks_; ++c) {
            harness::check(cudaMemcpyToSymbolAsync(c_thesis_taps, host_taps_.data() + c * thesis_block,
                                                   sizeof(float) * thesis_block, 0, cudaMemcpyHostToDevice, stream),
                           "copy 384 taps into constant memory");
            thesis_constant_kernel<<<static_cast<unsigned>(blocks_), thesis_block, 0, stream>>>(
                apron_.get(), out_.get(), static_cast<int>(c * thesis_block));
            harness::check(cudaGetLastError(), "launch the thesis convolution kernel");
            harness::check(cudaStreamSynchronize(stream), "wait for a convolution chunk");
        }
    }
    // [thesis-host-end]
    std::vector<float> result(cudaStream_t stream) const override { return out_.download(out_len_, stream); }

private:
    std::size_t out_len_ = 0, blocks_ = 0, chunks_ = 0;
    std::vector<float> host_taps_;
    DeviceFloats apron_, out_;
};

}  // namespace

std::vector<VariantEntry> thesis_convolution_variants() {
    return {reduction_entry<InterleavedTree>("one product per thread and round, interleaved tree"),
            reduction_entry<SequentialTree>("Harris's optimisations, sequential addressing"),
            {"thesis-constant384",
             "the thesis's Algorithms 6/7: a thread per output, 384 taps per launch in constant memory, synchronised",
             [] { return std::unique_ptr<Variant>(new ThesisConstant()); }}};
}

}  // namespace munch::gpu
