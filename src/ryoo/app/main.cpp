// ryoo: the matrix-multiplication ladder of Ryoo et al. (PPoPP 2008), SAXPY and the references, on today's
// GPU. One program, several subcommands.
#include <cstdio>
#include <exception>
#include <string>

#include "ryoo/app/commands.hpp"

namespace {

void usage(std::FILE* out) {
    std::fputs(
        "usage: ryoo <command> [options]\n"
        "\n"
        "commands:\n"
        "  info       the build's facts (CUDA, CPU BLAS) as JSON\n"
        "  bench-cpu  time the CPU BLAS SGEMM (OpenBLAS) and check its product\n"
        "  variants   list the GPU matrix-multiplication kernels: registers, local memory, occupancy\n"
        "  bench      time GPU matrix-multiplication variants, each checked against a double-precision product\n"
        "  stream     time SAXPY and the copy kernels, each checked exactly\n"
        "  profile    one launch of each named variant (for Nsight Compute)\n"
        "\n"
        "'ryoo <command> --help' lists each command's options.\n",
        out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string command = argv[1];
    const ryoo::app::Args args(argv + 2, argv + argc);
    try {
        if (command == "info") return ryoo::app::command_info(args);
        if (command == "bench-cpu") return ryoo::app::command_bench_cpu(args);
        if (command == "variants") return ryoo::app::command_variants(args);
        if (command == "bench") return ryoo::app::command_bench(args);
        if (command == "stream") return ryoo::app::command_stream(args);
        if (command == "profile") return ryoo::app::command_profile(args);
        if (command == "--help" || command == "-h" || command == "help") {
            usage(stdout);
            return 0;
        }
        std::fprintf(stderr, "ryoo: unknown command '%s'\n", command.c_str());
        usage(stderr);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ryoo: error: %s\n", e.what());
        return 1;
    }
}
