/// @file commands.hpp
/// @brief The commands of the `munch` program; each takes its arguments (after the command name) and
/// returns the exit status.
#pragma once

#include <string>
#include <vector>

namespace munch::app {

/// The arguments of one command.
using Args = std::vector<std::string>;

/// `munch bench-cpu`: times the CPU convolution or rolling ball (sequential, OpenMP), checked.
int command_bench_cpu(const Args& args);
/// `munch matmul`: square float matrix products (the thesis's chapter 3): the CPU's ikj loop, sequential and
/// OpenMP, and in the CUDA build the SDK-style tiled kernel and cuBLAS SGEMM (FP32), the GPU ones timed for
/// the kernel alone and with allocation and copies, each product checked against double precision first.
int command_matmul(const Args& args);
/// `munch variants`: the GPU variants of both computations, one line each.
int command_variants(const Args& args);
/// `munch bench`: times GPU variants on one input, each output checked against the CPU first.
int command_bench(const Args& args);
/// `munch pipeline`: the convolution with its transfers: the thesis's per-call procedure, persistent pinned
/// buffers, the chunked pipeline on three streams (and as a CUDA graph), and the copy floor, in one run.
int command_pipeline(const Args& args);
/// `munch launch`: the cost of launching an empty kernel (synchronised, asynchronous, graph).
int command_launch(const Args& args);
/// `munch pattern`: the likelihood thesis's launch pattern (a number of synchronised launches per
/// evaluation) replayed with empty kernels, against asynchronous launches and a graph.
int command_pattern(const Args& args);
/// `munch copy`: copy bandwidth against size for pageable, pinned and mapped host memory and device to device.
int command_copy(const Args& args);
/// `munch roofline`: the measured float and double peaks and the streaming bandwidth.
int command_roofline(const Args& args);
/// `munch ieee`: the float operations of four builds against the CPU.
int command_ieee(const Args& args);

}  // namespace munch::app
