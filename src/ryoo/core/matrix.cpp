#include "ryoo/core/matrix.hpp"

#include <stdexcept>
#include <string>

namespace ryoo {
namespace {

/// splitmix64: a small generator whose output is the same on every platform (std::uniform_real_distribution
/// is not specified bit for bit).
class SplitMix {
public:
    explicit SplitMix(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [-1, 1) on the grid of multiples of 2^-23: 24 random bits, exact in a float.
    float uniform() {
        const auto bits = static_cast<std::int64_t>(next() >> 40);  // 0 .. 2^24 - 1
        return static_cast<float>(bits - (std::int64_t{1} << 23)) * 0x1p-23f;
    }

private:
    std::uint64_t state_;
};

}  // namespace

Matrix random_matrix(int n, std::uint64_t seed) {
    if (n < 1 || n > 65536) throw std::invalid_argument("matrix size " + std::to_string(n) + " outside 1..65536");
    Matrix m{n, std::vector<float>(static_cast<std::size_t>(n) * n)};
    SplitMix g(seed);
    for (float& v : m.data) v = g.uniform();
    return m;
}

std::vector<float> random_vector(std::size_t count, std::uint64_t seed) {
    std::vector<float> v(count);
    SplitMix g(seed);
    for (float& x : v) x = g.uniform();
    return v;
}

std::vector<float> padded_copy(const Matrix& m, int padded) {
    if (padded < m.n)
        throw std::invalid_argument("padded size " + std::to_string(padded) + " below the matrix size " +
                                    std::to_string(m.n));
    std::vector<float> out(static_cast<std::size_t>(padded) * padded, 0.0f);
    for (int i = 0; i < m.n; ++i)
        for (int j = 0; j < m.n; ++j) out[static_cast<std::size_t>(i) * padded + j] = m.at(i, j);
    return out;
}

}  // namespace ryoo
