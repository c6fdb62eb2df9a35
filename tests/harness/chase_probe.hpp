/// @file chase_probe.hpp
/// @brief A kernel for the engine's tests that follows a chain of dependent loads through a buffer: each load
/// waits for the one before, so its time is the chain's length times the latency of wherever the lines are
/// (L2 or device memory), and the kernel's launch is small beside it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace harness_test {

/// 32-bit words in one 128-byte line: a chain has at most one link a line.
constexpr std::size_t chain_words_per_line = 128 / sizeof(unsigned);

/// The contents of a buffer of @p words 32-bit words holding a closed chain of @p links links, each in its own
/// 128-byte line, the lines evenly spread over the buffer and visited in a shuffled order (fixed seed); every
/// link holds the index of the next. Needs 1 <= @p links <= @p words / chain_words_per_line.
std::vector<unsigned> make_chain(std::size_t words, std::size_t links);

/// Enqueues on @p stream one single-thread kernel that follows @p links links of @p chain (made by make_chain
/// and copied to the device) from its first link, loading through L2 only (not the SM's L1), and writes where it
/// ended in @p sink.
void enqueue_chase(const unsigned* chain, std::size_t links, unsigned* sink, cudaStream_t stream);

}  // namespace harness_test
