// The thesis's GPU rolling ball (its chapter 5, Algorithms 10/11, Listings A.7/A.8), rebuilt.
#include <algorithm>
#include <limits>
#include <vector>

#include "munch/device_buffer.hpp"
#include "munch/thesis_layout.hpp"
#include "munch/variants.hpp"

namespace munch::gpu {

namespace {

/// Threads per block and taps per launch, as in the thesis.
constexpr int rb_block = static_cast<int>(thesis::block);

/// The launch's chunk of taps.
__constant__ float c_rb_taps[rb_block];

/// rbKernel: one 384-tap chunk of the erosion, kept as the maximum of (tap - sample); P = max(P, chunk).
__global__ void rb_erosion_chunk_kernel(const float* __restrict__ m_apron, float* __restrict__ p, int offset) {
    __shared__ float s_m[2 * rb_block];
    __shared__ float s_p[rb_block];
    const int t = threadIdx.x;
    const long long b = blockIdx.x;
    s_p[t] = -__builtin_huge_valf();
    s_m[t] = m_apron[b * rb_block + t + offset];
    s_m[t + rb_block] = m_apron[(b + 1) * rb_block + t + offset];
    __syncthreads();
    for (int i = 0; i < rb_block; ++i) {
        s_p[t] = fmaxf(s_p[t], c_rb_taps[i] - s_m[t + i]);
        __syncthreads();  // as published
    }
    p[b * rb_block + t] = fmaxf(p[b * rb_block + t], s_p[t]);
}

/// P and R start at -inf (the thesis set them on the host and uploaded them; a fill keeps the timed run free
/// of host copies that its own pure time did not include).
__global__ void rb_fill_kernel(float* __restrict__ target, long long count, float value) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) target[i] = value;
}

/// Sets @p count floats at @p target to @p value on @p stream.
void fill(float* target, std::size_t count, float value, cudaStream_t stream) {
    const auto blocks = static_cast<unsigned>((count + 255) / 256);
    rb_fill_kernel<<<blocks, 256, 0, stream>>>(target, static_cast<long long>(count), value);
    harness::check(cudaGetLastError(), "launch a fill");
}

/// rbKernel2: the erosion as a minimum, -max(tap - sample) = min(sample - tap) (exact: negation commutes
/// with rounding).
__global__ void rb_negate_kernel(float* __restrict__ p) {
    const long long q = static_cast<long long>(blockIdx.x) * rb_block + threadIdx.x;
    p[q] = -p[q];
}

/// rbKernel3: one 384-tap chunk of the dilation of R (the erosion, -inf around it); P = max(P, chunk).
__global__ void rb_dilation_chunk_kernel(const float* __restrict__ r, float* __restrict__ p, int offset) {
    __shared__ float s_r[2 * rb_block];
    __shared__ float s_p[rb_block];
    const int t = threadIdx.x;
    const long long b = blockIdx.x;
    s_p[t] = p[b * rb_block + t];
    s_r[t] = r[b * rb_block + t + offset];
    s_r[t + rb_block] = r[(b + 1) * rb_block + t + offset];
    __syncthreads();
    for (int i = 0; i < rb_block; ++i) {
        s_p[t] = fmaxf(s_p[t], c_rb_taps[i] + s_r[t + i]);
        __syncthreads();
    }
    p[b * rb_block + t] = s_p[t];
}

/// The host side (Listing A.7): the signal centred in +inf padding, P and R at -inf, the filter chunks
/// copied into constant memory before each synchronised launch. The published code starts the dilation
/// from P (the erosion itself); that equals the opening when the ball's centre height is >= 0, as a ball's
/// is. The filter is padded with -inf to a multiple of 384 (required, not described).
class ThesisRollingBall final : public Variant {
public:
    harness::DevicePlan plan(std::size_t n, std::size_t w) const override {
        harness::DevicePlan p;
        p.add<float>("the padded signal and R", thesis::rb_apron(n, w), 2).add<float>("the output", thesis::rb_output_array(n));
        return p;
    }
    void prepare(const std::vector<float>& signal, const std::vector<float>& ball, cudaStream_t stream) override {
        constexpr float inf = std::numeric_limits<float>::infinity();
        n_ = signal.size();
        const std::size_t w = ball.size(), r = (w - 1) / 2;
        blocks_ = thesis::rb_blocks(n_);
        chunks_ = thesis::launches(w);
        const std::size_t apron_len = thesis::rb_apron(n_, w);  // as the listing sizes it; also R's length
        std::vector<float> apron(apron_len, inf);
        std::copy(signal.begin(), signal.end(), apron.begin() + static_cast<std::ptrdiff_t>(r));
        erosion_taps_.assign(chunks_ * rb_block, -inf);
        std::copy(ball.begin(), ball.end(), erosion_taps_.begin());
        dilation_taps_.assign(chunks_ * rb_block, -inf);
        std::copy(ball.rbegin(), ball.rend(), dilation_taps_.begin());
        r_offset_ = r;
        apron_ = uploaded(apron, stream);
        p_ = DeviceFloats(thesis::rb_output_array(n_));
        r_ = DeviceFloats(apron_len);
    }
    void run(cudaStream_t stream) override {
        fill(p_.get(), p_.size(), -std::numeric_limits<float>::infinity(), stream);
        fill(r_.get(), r_.size(), -std::numeric_limits<float>::infinity(), stream);
        const auto grid = static_cast<unsigned>(blocks_);
        for (std::size_t c = 0; c < chunks_; ++c) {
            upload_chunk(erosion_taps_, c, stream);
            rb_erosion_chunk_kernel<<<grid, rb_block, 0, stream>>>(apron_.get(), p_.get(), static_cast<int>(c * rb_block));
            harness::check(cudaGetLastError(), "launch the erosion chunk");
            harness::check(cudaStreamSynchronize(stream), "wait for an erosion chunk");
        }
        rb_negate_kernel<<<grid, rb_block, 0, stream>>>(p_.get());
        harness::check(cudaGetLastError(), "launch the negation");
        harness::check(cudaMemcpyAsync(r_.get() + r_offset_, p_.get(), sizeof(float) * n_, cudaMemcpyDeviceToDevice, stream),
                       "copy the erosion into R");
        for (std::size_t c = 0; c < chunks_; ++c) {
            upload_chunk(dilation_taps_, c, stream);
            rb_dilation_chunk_kernel<<<grid, rb_block, 0, stream>>>(r_.get(), p_.get(), static_cast<int>(c * rb_block));
            harness::check(cudaGetLastError(), "launch the dilation chunk");
            harness::check(cudaStreamSynchronize(stream), "wait for a dilation chunk");
        }
    }
    std::vector<float> result(cudaStream_t stream) const override { return p_.download(n_, stream); }

private:
    static void upload_chunk(const std::vector<float>& taps, std::size_t c, cudaStream_t stream) {
        harness::check(cudaMemcpyToSymbolAsync(c_rb_taps, taps.data() + c * rb_block, sizeof(float) * rb_block, 0,
                                               cudaMemcpyHostToDevice, stream),
                       "copy 384 taps into constant memory");
    }
    std::size_t n_ = 0, blocks_ = 0, chunks_ = 0, r_offset_ = 0;
    std::vector<float> erosion_taps_, dilation_taps_;
    DeviceFloats apron_, p_, r_;
};

}  // namespace

std::vector<VariantEntry> thesis_rolling_ball_variants() {
    return {{"thesis-constant384",
             "the thesis's Algorithms 10/11: erosion and dilation, 384 taps per synchronised launch in constant memory",
             [] { return std::unique_ptr<Variant>(new ThesisRollingBall()); }}};
}

}  // namespace munch::gpu
