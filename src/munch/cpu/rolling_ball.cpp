#include "munch/cpu/rolling_ball.hpp"

#include <algorithm>

#include "munch/window_ops.hpp"

namespace munch::cpu {

namespace {

template <class Op>
void window_pass(const std::vector<float>& x, const std::vector<float>& taps, std::vector<float>& out, int threads) {
    const auto n = static_cast<long long>(x.size());
    const auto w = static_cast<long long>(taps.size());
    const long long shift = (w - 1) / 2;
    out.assign(x.size(), 0.0f);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long long i = 0; i < n; ++i)
        out[static_cast<std::size_t>(i)] = window_output<Op>(x.data(), n, taps.data(), w, shift, i);
}

}  // namespace

void erode(const std::vector<float>& signal, const std::vector<float>& ball, std::vector<float>& out, int threads) {
    window_pass<Erode>(signal, ball, out, threads);
}

void dilate(const std::vector<float>& eroded, const std::vector<float>& ball, std::vector<float>& out, int threads) {
    const std::vector<float> reversed(ball.rbegin(), ball.rend());
    window_pass<Dilate>(eroded, reversed, out, threads);
}

std::vector<float> rolling_ball(const std::vector<float>& signal, const std::vector<float>& ball, int threads) {
    std::vector<float> eroded, opened;
    erode(signal, ball, eroded, threads);
    dilate(eroded, ball, opened, threads);
    return opened;
}

double rolling_ball_published_cpu_work(std::size_t n, std::size_t w) {
    return 2.0 * static_cast<double>(n + w - 1) * static_cast<double>(w);
}

double rolling_ball_kept_work(std::size_t n, std::size_t w) { return 2.0 * static_cast<double>(n) * static_cast<double>(w); }

}  // namespace munch::cpu
