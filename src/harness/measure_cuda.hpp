/// @file measure_cuda.hpp
/// @brief The GPU measurement engine: run_measurement (measure.hpp) with CUDA events or the host clock
/// around work on a stream, the clock monitor around every sample, and for cold samples an L2 flush
/// before each one; plus an owned CUDA graph for the commands that replay captured launches.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>

#include "harness/clock_monitor.hpp"
#include "harness/measure.hpp"

namespace harness {

/// Evicts the L2 cache of one device: writes a buffer twice the size of the L2 (cudaDevAttrL2CacheSize),
/// so that no line of an earlier sample's data is left in it. The write is outside every timed window; the
/// dirty lines it leaves are part of the state a cold sample starts from.
class L2Flush {
public:
    /// Allocates the buffer on the current device (none when the device reports no L2).
    L2Flush();
    ~L2Flush();
    L2Flush(const L2Flush&) = delete;
    L2Flush& operator=(const L2Flush&) = delete;
    /// Overwrites the buffer on @p stream and waits for it.
    void flush(cudaStream_t stream);
    /// The L2's size as the device reports it [bytes].
    std::size_t l2_bytes() const { return l2_bytes_; }

private:
    int device_ = 0;
    std::size_t l2_bytes_ = 0;
    void* buffer_ = nullptr;
    unsigned char value_ = 0;
};

/// Times @p work (enqueued on @p stream) between two CUDA events under the stop rule of @p options,
/// with @p monitor polling the clock during each sample; cold: L2 flushed before each sample.
Measurement measure(cudaStream_t stream, const MeasureOptions& options, ClockMonitor& monitor,
                    const std::function<void()>& work);

/// The same with the host's steady clock around @p work and a synchronisation of @p stream (for work the
/// host takes part in: pageable copies, launch loops).
Measurement measure_wall(cudaStream_t stream, const MeasureOptions& options, ClockMonitor& monitor,
                         const std::function<void()>& work);

/// The same for work that times itself: @p sample_ms runs one sample and returns its time [ms] (an
/// evaluation that records its own events, a loop minus its baseline). Cold flushes on @p stream.
Measurement measure_self_timed(cudaStream_t stream, const MeasureOptions& options, ClockMonitor& monitor,
                               const std::function<double()>& sample_ms);

/// A captured CUDA graph and its executable instance, destroyed with their owner.
class Graph {
public:
    /// Captures what @p enqueue puts on @p stream, instantiates it, and uploads it with one untimed launch.
    Graph(cudaStream_t stream, const std::function<void()>& enqueue);
    ~Graph();
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    /// Launches the instance on @p stream.
    void launch(cudaStream_t stream) const;

private:
    cudaGraph_t graph_{};
    cudaGraphExec_t exec_{};
};

/// The PCI bus id of the current device (as NVML expects it).
std::string current_pci_bus_id();

}  // namespace harness
