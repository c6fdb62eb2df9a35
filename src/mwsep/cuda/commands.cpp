#include "mwsep/cuda/commands.hpp"

#include <cxxabi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <regex>
#include <stdexcept>

#include "mwsep/cuda_check.hpp"
#include "mwsep/math/constants.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/variant_table.hpp"

namespace mwsep::cuda {
namespace {

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

/// Maps a demangled integral-kernel name to its variant, stream count and cap; false for other kernels.
bool classify(const std::string& name, CompiledKernel& k) {
    const auto modern = name.find("modern_integral_kernel<");
    if (modern != std::string::npos) {
        const bool is_double = name.compare(modern + 23, 6, "double") == 0;
        k.variant = std::string("modern-") + (is_double ? "f64" : "f32");
        k.capped = false;
        const auto comma = name.find(", ", modern);
        k.streams = comma == std::string::npos ? 0 : std::atoi(name.c_str() + comma + 2);
        return true;
    }
    const bool capped = name.find("integral_kernel_capped<") != std::string::npos;
    if (!capped && name.find("integral_kernel<") == std::string::npos) return false;
    const auto pick = [&](std::initializer_list<std::pair<const char*, const char*>> options) -> std::string {
        for (const auto& [needle, label] : options)
            if (name.find(needle) != std::string::npos) return label;
        return "";
    };
    const std::string memory = pick({{"GlobalMemory", "global"}, {"ConstantMemory", "constant"},
                                     {"TextureMemory", "texture"}, {"SharedMemory", "shared"}});
    const std::string divsqrt = pick({{"MixedPrecisionDivSqrt", "fast"}, {"IeeeDivSqrt", "ieee"}});
    const std::string loop = pick({{"RuntimeLoop", "loop"}, {"Unrolled", "unrolled"}});
    const std::string precision = pick({{", double>", "f64"}, {", float>", "f32"}});
    if (memory.empty() || divsqrt.empty() || loop.empty() || precision.empty()) return false;
    k.variant = memory + "-" + divsqrt + "-" + loop + "-" + precision;
    k.capped = capped;
    const auto close = name.find(">, ");
    k.streams = close == std::string::npos ? 0 : std::atoi(name.c_str() + close + 3);
    return true;
}

}  // namespace

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
            active = classify(demangle(m[1]), current);
            current.arch = m[2];
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

int command_variants(const std::vector<std::string>& args) {
    int streams = 3;
    int threads = 64;
    std::string report = default_resource_report();
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--streams" && i + 1 < args.size()) streams = std::stoi(args[++i]);
        else if (args[i] == "--threads" && i + 1 < args.size()) threads = std::stoi(args[++i]);
        else if (args[i] == "--report" && i + 1 < args.size()) report = args[++i];
        else if (args[i] == "--help" || args[i] == "-h") {
            std::printf("usage: mwsep variants [--streams S] [--threads T] [--report FILE]\n"
                        "Lists every kernel variant for S streams (default 3) at T threads per block (default 64):\n"
                        "registers, spills and stack from the compiler's report for the build's architecture and,\n"
                        "on a machine with a GPU, registers, local and shared memory and theoretical occupancy.\n");
            return 0;
        } else {
            throw std::invalid_argument("mwsep variants: unknown option '" + args[i] + "'");
        }
    }
    if (streams < 0 || streams > constants::max_gpu_streams) throw std::invalid_argument("mwsep variants: --streams must be 0..4");
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
            if (capped && !v.has_capped_build) continue;
            const int s_key = v.unrolled ? streams : 0;
            const CompiledKernel* found = nullptr;
            for (const auto& k : compiled)
                if (k.variant == v.name && k.streams == s_key && k.capped == capped) found = &k;
            if (!found) {
                ++missing;
                std::printf("%-28s (no compiler report for this instance)\n", v.name.c_str());
                continue;
            }
            const std::size_t shared = v.shared_bytes(threads);
            std::printf("%-28s %-6s %-7s %5d %8d %8d %8zu", v.name.c_str(), found->arch.c_str(), capped ? "48" : "no",
                        found->registers, found->spill_stores, found->spill_loads, shared);
            if (gpu) {
                cudaFuncAttributes attr{};
                const void* kernel = v.kernel(streams, capped);
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
