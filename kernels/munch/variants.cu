// The two lists of variants, in the order of the report: the thesis's first.
#include "munch/variants.hpp"

namespace munch::gpu {

std::vector<VariantEntry> convolution_variants() {
    auto all = thesis_convolution_variants();
    for (auto& v : tiled_convolution_variants()) all.push_back(std::move(v));
    for (auto& v : direct_convolution_variants()) all.push_back(std::move(v));
    for (auto& v : fft_convolution_variants()) all.push_back(std::move(v));
    return all;
}

std::vector<VariantEntry> rolling_ball_variants() {
    auto all = thesis_rolling_ball_variants();
    for (auto& v : tiled_rolling_ball_variants()) all.push_back(std::move(v));
    return all;
}

}  // namespace munch::gpu
