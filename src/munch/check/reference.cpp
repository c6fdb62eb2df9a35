#include "munch/check/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "munch/cpu/convolution.hpp"
#include "munch/cpu/rolling_ball.hpp"
#include "munch/window_ops.hpp"

namespace munch::check {

std::vector<std::size_t> sample_positions(std::size_t length, std::size_t count) {
    std::vector<std::size_t> p;
    if (count >= length) {
        p.resize(length);
        for (std::size_t i = 0; i < length; ++i) p[i] = i;
        return p;
    }
    const std::size_t ends = std::min<std::size_t>(count / 4, 256);
    for (std::size_t i = 0; i < ends; ++i) {
        p.push_back(i);
        p.push_back(length - 1 - i);
    }
    const std::size_t spread = count - p.size();
    for (std::size_t j = 0; j < spread; ++j)
        p.push_back(static_cast<std::size_t>((static_cast<double>(j) + 0.5) * static_cast<double>(length) / static_cast<double>(spread)));
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    return p;
}

namespace {

template <class Value>
Verdict compare(const std::vector<float>& output, std::size_t length, const std::vector<std::size_t>& positions,
                const std::vector<Value>& reference, double tolerance, bool all) {
    if (output.size() != length)
        throw std::invalid_argument("check: the output has " + std::to_string(output.size()) + " values, expected " +
                                    std::to_string(length));
    Verdict v;
    v.tolerance = tolerance;
    v.checked = all ? "all" : "sample:" + std::to_string(positions.size());
    v.valid = true;
    for (std::size_t j = 0; j < positions.size(); ++j) {
        const double got = output[positions[j]], want = static_cast<double>(reference[j]);
        // Infinities agree only with themselves; a NaN never agrees.
        const double err = (got == want) ? 0.0 : std::fabs(got - want);
        if (!(err <= tolerance)) {
            if (v.valid)
                v.first_failure = "output " + std::to_string(positions[j]) + ": " + std::to_string(got) + " instead of " +
                                  std::to_string(want);
            v.valid = false;
        }
        if (!(err <= v.max_abs_err)) v.max_abs_err = std::isnan(err) ? INFINITY : err;
    }
    return v;
}

}  // namespace

ConvolutionReference::ConvolutionReference(const std::vector<float>& signal, const std::vector<float>& filter,
                                           int threads, double full_budget)
    : length_(cpu::convolution_length(signal.size(), filter.size())) {
    if (signal.empty() || filter.empty()) throw std::invalid_argument("convolution reference: empty signal or filter");
    const double w = static_cast<double>(filter.size());
    all_ = static_cast<double>(length_) * w <= full_budget;
    const auto samples = all_ ? length_ : std::max<std::size_t>(64, static_cast<std::size_t>(full_budget / w));
    positions_ = sample_positions(length_, samples);
    all_ = positions_.size() == length_;
    values_.resize(positions_.size());
    const auto count = static_cast<long long>(positions_.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
    for (long long j = 0; j < count; ++j)
        values_[static_cast<std::size_t>(j)] = cpu::convolution_reference_at(signal, filter, positions_[static_cast<std::size_t>(j)]);
}

Verdict ConvolutionReference::check(const std::vector<float>& output, double tolerance) const {
    return compare(output, length_, positions_, values_, tolerance, all_);
}

bool rolling_ball_checkable(std::size_t n, std::size_t w, double full_budget) {
    const double nw = static_cast<double>(n) * static_cast<double>(w);
    return 2 * nw <= full_budget || 16.0 * static_cast<double>(w) * static_cast<double>(w) <= full_budget;
}

RollingBallReference::RollingBallReference(const std::vector<float>& signal, const std::vector<float>& ball, int threads,
                                           double full_budget)
    : length_(signal.size()) {
    const std::size_t n = signal.size(), w = ball.size();
    if (!rolling_ball_checkable(n, w, full_budget))
        throw std::invalid_argument("rolling-ball reference: " + std::to_string(n) + " samples and a ball of " +
                                    std::to_string(w) + " exceed the checking budget");
    all_ = 2.0 * static_cast<double>(n) * static_cast<double>(w) <= full_budget;
    if (all_) {
        values_ = cpu::rolling_ball(signal, ball, threads);
        positions_ = sample_positions(n, n);
        return;
    }
    const auto samples = std::max<std::size_t>(16, static_cast<std::size_t>(full_budget / (static_cast<double>(w) * static_cast<double>(w))));
    positions_ = sample_positions(n, samples);
    values_.resize(positions_.size());
    const auto wl = static_cast<long long>(w), nl = static_cast<long long>(n), r = (wl - 1) / 2;
    const std::vector<float> reversed(ball.rbegin(), ball.rend());
    const auto count = static_cast<long long>(positions_.size());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (long long j = 0; j < count; ++j) {
        const auto i = static_cast<long long>(positions_[static_cast<std::size_t>(j)]);
        // The erosion on [i - r, i + r] (-inf outside the signal), then the one dilated output.
        std::vector<float> eroded(static_cast<std::size_t>(wl));
        for (long long k = 0; k < wl; ++k) {
            const long long e = i - r + k;
            eroded[static_cast<std::size_t>(k)] = (e >= 0 && e < nl)
                ? window_output<Erode>(signal.data(), nl, ball.data(), wl, r, e) : Dilate::padding();
        }
        float acc = Dilate::identity();
        for (long long k = 0; k < wl; ++k) acc = Dilate::combine(acc, eroded[static_cast<std::size_t>(k)], reversed[static_cast<std::size_t>(k)]);
        values_[static_cast<std::size_t>(j)] = acc;
    }
}

Verdict RollingBallReference::check(const std::vector<float>& output) const {
    return compare(output, length_, positions_, values_, 0.0, all_);
}

}  // namespace munch::check
