#include "munch/cpu/convolution.hpp"

#include <algorithm>

namespace munch::cpu {

double convolution_reference_at(const std::vector<float>& signal, const std::vector<float>& filter, std::size_t i) {
    const std::size_t n = signal.size(), w = filter.size();
    // k runs over the taps that meet the signal: 0 <= i - k < n.
    const std::size_t k_first = i >= n ? i - n + 1 : 0;
    const std::size_t k_last = std::min(i, w - 1);
    double sum = 0;
    for (std::size_t k = k_first; k <= k_last; ++k)
        sum += static_cast<double>(signal[i - k]) * static_cast<double>(filter[k]);
    return sum;
}

std::vector<double> convolution_reference(const std::vector<float>& signal, const std::vector<float>& filter) {
    std::vector<double> out(convolution_length(signal.size(), filter.size()));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = convolution_reference_at(signal, filter, i);
    return out;
}

namespace {

// M2 = (w-1) zeros, the signal, (w-1) zeros: every output then reads w samples without a bounds test.
std::vector<float> zero_padded(const std::vector<float>& signal, std::size_t w) {
    std::vector<float> m2(signal.size() + 2 * (w - 1), 0.0f);
    std::copy(signal.begin(), signal.end(), m2.begin() + static_cast<std::ptrdiff_t>(w - 1));
    return m2;
}

}  // namespace

void convolution_sequential(const std::vector<float>& signal, const std::vector<float>& filter, std::vector<float>& out) {
    const std::size_t w = filter.size();
    const std::vector<float> m2 = zero_padded(signal, w);
    out.assign(convolution_length(signal.size(), w), 0.0f);
    for (std::size_t p = 0; p < out.size(); ++p) {
        float sum = 0;
        for (std::size_t k = 0; k < w; ++k) sum += m2[p + k] * filter[w - 1 - k];
        out[p] = sum;
    }
}

void convolution_openmp(const std::vector<float>& signal, const std::vector<float>& filter, std::vector<float>& out,
                        int threads) {
    const std::size_t w = filter.size();
    const std::vector<float> m2 = zero_padded(signal, w);
    out.assign(convolution_length(signal.size(), w), 0.0f);
    const auto outputs = static_cast<long long>(out.size());
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long long p = 0; p < outputs; ++p) {
        float sum = 0;
        for (std::size_t k = 0; k < w; ++k) sum += m2[static_cast<std::size_t>(p) + k] * filter[w - 1 - k];
        out[static_cast<std::size_t>(p)] = sum;
    }
}

}  // namespace munch::cpu
