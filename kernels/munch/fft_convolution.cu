// The convolution through the FFT (cuFFT): O((n + w) log(n + w)) instead of O(n w), for long filters.
#include <cufft.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "munch/device_buffer.hpp"
#include "munch/fft_sizes.hpp"
#include "munch/variants.hpp"

namespace munch::gpu {

namespace {

/// Throws harness::CudaError naming @p what when cuFFT did not succeed.
void check_fft(cufftResult status, const char* what) {
    if (status != CUFFT_SUCCESS) throw harness::CudaError(std::string("cuFFT error ") + std::to_string(status) + " while trying to " + what);
}

/// The spectra's product a *= b, scaled by @p scale = 1/size (cuFFT's inverse transform is unnormalised).
__global__ void multiply_spectra_kernel(cufftComplex* __restrict__ a, const cufftComplex* __restrict__ b, long long count,
                                        float scale) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) {
        const cufftComplex x = a[i], y = b[i];
        a[i] = {(x.x * y.x - x.y * y.y) * scale, (x.x * y.y + x.y * y.x) * scale};
    }
}

/// The convolution through zero-padded real FFTs: transform signal and filter, multiply, transform back.
class FftConvolution final : public Variant {
public:
    harness::DevicePlan plan(std::size_t n, std::size_t w) const override {
        const std::size_t size = fft_size(n + w - 1), bins = size / 2 + 1;
        // cuFFT's own work areas, as it estimates them before any plan exists.
        std::size_t forward = 0, inverse = 0;
        check_fft(cufftEstimate1d(static_cast<int>(size), CUFFT_R2C, 1, &forward), "estimate the forward FFT's work area");
        check_fft(cufftEstimate1d(static_cast<int>(size), CUFFT_C2R, 1, &inverse), "estimate the inverse FFT's work area");
        harness::DevicePlan p;
        p.add<float>("the signal", n)
            .add<float>("the filter", w)
            .add<float>("the transform buffers", size, 2)
            .add<float>("the spectra", 2 * bins, 2)
            .add<char>("cuFFT's work areas", forward + inverse);
        return p;
    }
    ~FftConvolution() override {
        if (forward_) cufftDestroy(forward_);
        if (inverse_) cufftDestroy(inverse_);
    }
    void prepare(const std::vector<float>& signal, const std::vector<float>& filter, cudaStream_t stream) override {
        n_ = signal.size();
        w_ = filter.size();
        size_ = fft_size(n_ + w_ - 1);
        bins_ = size_ / 2 + 1;
        signal_ = uploaded(signal, stream);
        filter_ = uploaded(filter, stream);
        padded_signal_ = DeviceFloats(size_);
        padded_filter_ = DeviceFloats(size_);
        // Complex spectra as float pairs.
        spectrum_signal_ = DeviceFloats(2 * bins_);
        spectrum_filter_ = DeviceFloats(2 * bins_);
        check_fft(cufftPlan1d(&forward_, static_cast<int>(size_), CUFFT_R2C, 1), "plan the forward FFT");
        check_fft(cufftPlan1d(&inverse_, static_cast<int>(size_), CUFFT_C2R, 1), "plan the inverse FFT");
        check_fft(cufftSetStream(forward_, stream), "set the FFT stream");
        check_fft(cufftSetStream(inverse_, stream), "set the FFT stream");
    }
    void run(cudaStream_t stream) override {
        // Zero-pad both to the transform size: a cyclic convolution of that length is then the full one.
        pad(padded_signal_, signal_, n_, stream);
        pad(padded_filter_, filter_, w_, stream);
        auto* a = reinterpret_cast<cufftComplex*>(spectrum_signal_.get());
        auto* b = reinterpret_cast<cufftComplex*>(spectrum_filter_.get());
        check_fft(cufftExecR2C(forward_, padded_signal_.get(), a), "transform the signal");
        check_fft(cufftExecR2C(forward_, padded_filter_.get(), b), "transform the filter");
        const auto count = static_cast<long long>(bins_);
        multiply_spectra_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(a, b, count,
                                                                                                 1.0f / static_cast<float>(size_));
        harness::check(cudaGetLastError(), "launch the spectrum product");
        check_fft(cufftExecC2R(inverse_, a, padded_signal_.get()), "transform back");
    }
    std::vector<float> result(cudaStream_t stream) const override { return padded_signal_.download(n_ + w_ - 1, stream); }

private:
    void pad(DeviceFloats& padded, const DeviceFloats& source, std::size_t count, cudaStream_t stream) {
        harness::check(cudaMemcpyAsync(padded.get(), source.get(), sizeof(float) * count, cudaMemcpyDeviceToDevice, stream),
                       "copy into the transform buffer");
        harness::check(cudaMemsetAsync(padded.get() + count, 0, sizeof(float) * (size_ - count), stream),
                       "zero the transform buffer's tail");
    }
    std::size_t n_ = 0, w_ = 0, size_ = 0, bins_ = 0;
    cufftHandle forward_ = 0, inverse_ = 0;
    DeviceFloats signal_, filter_, padded_signal_, padded_filter_, spectrum_signal_, spectrum_filter_;
};

}  // namespace

std::vector<VariantEntry> fft_convolution_variants() {
    return {{"cufft", "zero-padded real FFTs of signal and filter (cuFFT), their product, the inverse FFT",
             [] { return std::unique_ptr<Variant>(new FftConvolution()); }}};
}

}  // namespace munch::gpu
