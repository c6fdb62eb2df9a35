#include "harness/measure_cuda.hpp"

#include <chrono>
#include <memory>
#include <string>

#include "harness/check.hpp"

namespace harness {

L2Flush::L2Flush() {
    check(cudaGetDevice(&device_), "read the current device");
    int bytes = 0;
    check(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device_), "query the L2 cache size");
    l2_bytes_ = static_cast<std::size_t>(bytes);
    if (l2_bytes_ > 0) check(cudaMalloc(&buffer_, 2 * l2_bytes_), "allocate the L2 flush buffer");
}

L2Flush::~L2Flush() {
    if (buffer_) {
        use_device_quietly(device_);
        cudaFree(buffer_);
    }
}

void L2Flush::flush(cudaStream_t stream) {
    if (!buffer_) return;
    value_ = static_cast<unsigned char>(value_ + 1);  // new values each time: no write can be skipped
    check(cudaMemsetAsync(buffer_, value_, 2 * l2_bytes_, stream), "flush the L2 cache");
    check(cudaStreamSynchronize(stream), "finish the L2 flush");
}

namespace {

Measurement measure_with(cudaStream_t stream, const MeasureOptions& options, ClockMonitor& monitor,
                         const std::function<double()>& timed) {
    std::unique_ptr<L2Flush> flush;
    if (options.cold) flush = std::make_unique<L2Flush>();
    return run_measurement(options, steady_seconds, [&] {
        if (flush) flush->flush(stream);
        monitor.start();
        Sample s;
        try {
            s.ms = timed();
        } catch (...) {
            monitor.stop();
            throw;
        }
        s.clock = monitor.stop();
        return s;
    });
}

}  // namespace

Measurement measure(cudaStream_t stream, const MeasureOptions& options, ClockMonitor& monitor,
                    const std::function<void()>& work) {
    Event start, stop;
    return measure_with(stream, options, monitor, [&] {
        start.record(stream);
        work();
        stop.record(stream);
        check(cudaStreamSynchronize(stream), "wait for a timed sample");
        return static_cast<double>(stop.since(start));
    });
}

Measurement measure_wall(cudaStream_t stream, const MeasureOptions& options, ClockMonitor& monitor,
                         const std::function<void()>& work) {
    return measure_with(stream, options, monitor, [&] {
        const double t0 = steady_seconds();
        work();
        check(cudaStreamSynchronize(stream), "wait for a timed sample");
        return (steady_seconds() - t0) * 1e3;
    });
}

Measurement measure_self_timed(cudaStream_t stream, const MeasureOptions& options, ClockMonitor& monitor,
                               const std::function<double()>& sample_ms) {
    return measure_with(stream, options, monitor, sample_ms);
}

Graph::Graph(cudaStream_t stream, const std::function<void()>& enqueue) {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin a capture");
    try {
        enqueue();
    } catch (...) {
        cudaGraph_t partial{};
        cudaStreamEndCapture(stream, &partial);
        if (partial) cudaGraphDestroy(partial);
        throw;
    }
    check(cudaStreamEndCapture(stream, &graph_), "end a capture");
    try {
        check(cudaGraphInstantiate(&exec_, graph_, 0), "instantiate a graph");
        launch(stream);  // the upload, untimed
        check(cudaStreamSynchronize(stream), "finish the graph's first launch");
    } catch (...) {
        if (exec_) cudaGraphExecDestroy(exec_);
        cudaGraphDestroy(graph_);
        throw;
    }
}

Graph::~Graph() {
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
}

void Graph::launch(cudaStream_t stream) const { check(cudaGraphLaunch(exec_, stream), "launch a graph"); }

std::string current_pci_bus_id() {
    int device = 0;
    check(cudaGetDevice(&device), "read the current device");
    char id[32] = {};
    check(cudaDeviceGetPCIBusId(id, sizeof id, device), "query the device's PCI bus id");
    return id;
}

}  // namespace harness
