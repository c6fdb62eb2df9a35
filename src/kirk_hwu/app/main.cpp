// kirk_hwu: MRI reconstruction (Q, F^H d) and direct Coulomb summation, CPU baselines and CUDA ladders.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "kirk_hwu/app/commands.hpp"

namespace {

void usage(std::FILE* out) {
    std::fputs(
        "usage: kirk_hwu <command> [options]\n"
        "\n"
        "commands:\n"
        "  cpu       time the single-thread CPU loops (FP64, FP32) and their error against FP64\n"
        "  variants  list the GPU variants: step, tolerance, what each changes\n"
        "  bench     check GPU variants against the FP64 reference, then time them (CUDA events)\n"
        "  rates     the FMA, sin+cos and rsqrt rate microbenchmark behind the throughput bounds\n",
        out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string command = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    try {
        if (command == "cpu") return kirk_hwu::app::command_cpu(args);
        if (command == "variants") return kirk_hwu::app::command_variants(args);
        if (command == "bench") return kirk_hwu::app::command_bench(args);
        if (command == "rates") return kirk_hwu::app::command_rates(args);
        if (command == "--help" || command == "-h" || command == "help") {
            usage(stdout);
            return 0;
        }
        std::fprintf(stderr, "kirk_hwu: unknown command '%s'\n", command.c_str());
        usage(stderr);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kirk_hwu: error: %s\n", e.what());
        return 1;
    }
}
