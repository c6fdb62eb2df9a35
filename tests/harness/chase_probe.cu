// The pointer-chasing probe of chase_probe.hpp.
#include "chase_probe.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "harness/check.hpp"

namespace harness_test {
namespace {

__global__ void chase(const unsigned* chain, std::size_t links, unsigned first, unsigned* sink) {
    unsigned at = first;
    for (std::size_t k = 0; k < links; ++k) at = __ldcg(chain + at);
    *sink = at;
}

}  // namespace

std::vector<unsigned> make_chain(std::size_t words, std::size_t links) {
    const std::size_t lines = words / chain_words_per_line;
    if (links < 1 || links > lines) throw std::invalid_argument("make_chain: 1 to words / chain_words_per_line links");
    std::vector<std::size_t> order(links);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 random(20261129);
    std::shuffle(order.begin() + 1, order.end(), random);  // the chain starts at line 0 (enqueue_chase)
    const std::size_t spacing = lines / links;
    std::vector<unsigned> chain(words, 0);
    for (std::size_t k = 0; k < links; ++k)
        chain[order[k] * spacing * chain_words_per_line] =
            static_cast<unsigned>(order[(k + 1) % links] * spacing * chain_words_per_line);
    return chain;
}

void enqueue_chase(const unsigned* chain, std::size_t links, unsigned* sink, cudaStream_t stream) {
    chase<<<1, 1, 0, stream>>>(chain, links, 0u, sink);
    harness::check(cudaGetLastError(), "launch the chase probe");
}

}  // namespace harness_test
