#include "mwsep/cuda/commands.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <regex>
#include <stdexcept>

#include "harness/type_name.hpp"
#include "mwsep/cuda/devices.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/math/constants.hpp"

namespace mwsep::cuda {

std::string default_resource_report() {
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return "kernel_resources.txt";
    exe[n] = '\0';
    std::string dir(exe);
    return dir.substr(0, dir.find_last_of('/') + 1) + "kernel_resources.txt";
}

std::vector<CompiledKernel> read_resource_report(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the kernel resource report " + path + " (written when the kernels are built)");
    const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
    const std::regex spills(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    const std::regex regs(R"(Used (\d+) registers)");
    std::vector<CompiledKernel> out;
    CompiledKernel current;
    bool active = false;
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, entry)) {
            if (active) out.push_back(current);
            current = CompiledKernel{};
            current.identity = harness::function_identity(harness::demangle(m[1]));
            current.arch = m[2];
            active = true;
        } else if (active && std::regex_search(line, m, spills)) {
            current.stack = std::stoi(m[1]);
            current.spill_stores = std::stoi(m[2]);
            current.spill_loads = std::stoi(m[3]);
        } else if (active && std::regex_search(line, m, regs)) {
            current.registers = std::stoi(m[1]);
        }
    }
    if (active) out.push_back(current);
    return out;
}

const CompiledKernel* find_compiled(const std::vector<CompiledKernel>& report, const std::string& identity) {
    if (identity.empty()) return nullptr;
    const CompiledKernel* found = nullptr;
    for (const auto& k : report)
        if (k.identity == identity) found = &k;  // the last entry, should an architecture list repeat it
    return found;
}

int list_variants(const VariantsOptions& options) {
    const int streams = options.streams;
    const int threads = options.threads;
    const std::string report = options.report.empty() ? default_resource_report() : options.report;
    const auto compiled = read_resource_report(report);
    int device_count = 0;
    const bool gpu = cudaGetDeviceCount(&device_count) == cudaSuccess && device_count > 0;
    cudaDeviceProp prop{};
    if (gpu) {
        const int dev = select_device(-1, false);
        check(cudaSetDevice(dev), "select the device");
        check(cudaGetDeviceProperties(&prop, dev), "query the device");
        std::printf("GPU: %s (%d SMs); %d threads per block; %d streams\n", prop.name, prop.multiProcessorCount, threads,
                    streams);
    } else {
        (void)cudaGetLastError();
        std::printf("No GPU: compiler report only; %d streams\n", streams);
    }
    std::printf("%-28s %-6s %-7s %5s %8s %8s %8s", "variant", "arch", "capped", "regs", "spill_st", "spill_ld",
                "shared_B");
    if (gpu) std::printf(" %8s %8s %9s", "gpu_regs", "local_B", "occupancy");
    std::printf("\n");
    int missing = 0;
    for (const auto& v : variants()) {
        for (const bool capped : {false, true}) {
            if (capped && !v.family->has_capped_build()) continue;
            const CompiledKernel* found = find_compiled(compiled, v.kernels.identity(streams, capped));
            if (!found) {
                ++missing;
                std::printf("%-28s (no compiler report for this instance)\n", v.name.c_str());
                continue;
            }
            const std::size_t shared = v.kernels.shared_bytes(threads);
            std::printf("%-28s %-6s %-7s %5d %8d %8d %8zu", v.name.c_str(), found->arch.c_str(), capped ? "48" : "no",
                        found->registers, found->spill_stores, found->spill_loads, shared);
            if (gpu) {
                cudaFuncAttributes attr{};
                const void* kernel = v.kernels.kernel(streams, capped);
                check(cudaFuncGetAttributes(&attr, kernel), "query kernel attributes");
                int blocks = 0;
                check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared), "compute occupancy");
                const double occupancy = 100.0 * blocks * threads / prop.maxThreadsPerMultiProcessor;
                std::printf(" %8d %8zu %8.1f%%", attr.numRegs, attr.localSizeBytes, occupancy);
            }
            std::printf("\n");
        }
    }
    return missing == 0 ? 0 : 1;
}

}  // namespace mwsep::cuda
