/// @file pipeline_plan.hpp
/// @brief The chunk plan of a pipelined convolution: which outputs each chunk computes, which samples of the
/// signal must be on the device before its kernels run (the filter's halo included), and which outputs it
/// copies back. Host arithmetic only, so that the halo handling at the chunk edges is tested on the CPU.
///
/// The layout is the direct kernel's (kernels/munch/direct_window.cuh): the signal lies in a zero-padded device
/// input at offset `lead` (w - 1 leading zeros), output i = sum_k signal[i - k] filter[k] is computed from padded
/// inputs i .. i + w - 1, the outputs form groups of four, and group q reads padded inputs [4q, 4q + reach): its
/// window, and past it what the kernel's whole 16-byte loads and the zero taps that pad the filter to whole
/// launches touch. A chunk is a run of output groups. Its reads start w - 1 samples before its first output (the
/// filter's halo at the chunk's left edge: samples the earlier chunks uploaded) and end at 4 (last group) + reach,
/// past its last output (the right edge). So the uploads are consecutive, disjoint pieces of the signal, each
/// ending where its chunk's reads end, and run in chunk order before the chunk's kernels: everything a kernel
/// reads then holds this call's data, and the padding (never written by an upload) stays zero.
#pragma once

#include <cstddef>
#include <vector>

namespace munch {

/// One chunk of a pipelined convolution.
struct PipelineChunk {
    std::size_t first_group = 0;  ///< the first output group of four it computes
    std::size_t groups = 0;       ///< output groups it computes
    std::size_t copy_first = 0;   ///< the first signal sample it uploads
    std::size_t copy_count = 0;   ///< signal samples it uploads before its kernels (0: earlier chunks did)
    std::size_t out_first = 0;    ///< the first output it downloads (4 first_group)
    std::size_t out_count = 0;    ///< outputs it downloads after its kernels (the last chunk stops at n + w - 1)
};

/// The chunks of the full convolution of @p n samples with @p w taps in (at most) @p chunks pieces of equal
/// output groups, for a kernel whose output group q reads padded inputs [4q, 4q + @p reach). Fewer chunks
/// when there are fewer output groups. std::invalid_argument when n, w, chunks or reach is 0, or when reach
/// is shorter than the window of a group of four outputs (reach < w + 3).
std::vector<PipelineChunk> plan_pipeline(std::size_t n, std::size_t w, std::size_t reach, std::size_t chunks);

/// The padded inputs output group @p q reads end before this index: 4q + @p reach.
inline std::size_t pipeline_read_end(std::size_t q, std::size_t reach) { return 4 * q + reach; }

}  // namespace munch
