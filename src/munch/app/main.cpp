// munch: the convolution, rolling-ball and CUDA-limits measurements of Münch (2009), rebuilt.
#include <cstdio>
#include <exception>
#include <string>

#include "munch/app/commands.hpp"

namespace {

void usage(std::FILE* out) {
    std::fputs(
        "usage: munch <command> [options]\n"
        "\n"
        "commands:\n"
        "  bench-cpu  time the CPU convolution or rolling ball (sequential, OpenMP), checked\n"
        "  variants   list the GPU variants\n"
        "  bench      time GPU variants on one input, each checked against the CPU first\n"
        "  launch     empty-kernel launch cost: synchronised, asynchronous, CUDA graph\n"
        "  pattern    a number of synchronised launches per evaluation, replayed\n"
        "  copy       copy bandwidth against size: pageable, pinned, mapped, device to device\n"
        "  roofline   measured float and double peaks and streaming bandwidth\n"
        "  ieee       float division, square root, multiply-add and denormals: four builds against the CPU\n",
        out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string command = argv[1];
    const munch::app::Args args(argv + 2, argv + argc);
    try {
        if (command == "bench-cpu") return munch::app::command_bench_cpu(args);
        if (command == "--help" || command == "-h" || command == "help") {
            usage(stdout);
            return 0;
        }
#ifdef MUNCH_WITH_CUDA
        if (command == "variants") return munch::app::command_variants(args);
        if (command == "bench") return munch::app::command_bench(args);
        if (command == "launch") return munch::app::command_launch(args);
        if (command == "pattern") return munch::app::command_pattern(args);
        if (command == "copy") return munch::app::command_copy(args);
        if (command == "roofline") return munch::app::command_roofline(args);
        if (command == "ieee") return munch::app::command_ieee(args);
#else
        if (command == "variants" || command == "bench" || command == "launch" || command == "pattern" ||
            command == "copy" || command == "roofline" || command == "ieee") {
            std::fprintf(stderr, "munch: '%s' needs the CUDA build (this one was built without CUDA)\n", command.c_str());
            return 2;
        }
#endif
        std::fprintf(stderr, "munch: unknown command '%s'\n", command.c_str());
        usage(stderr);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "munch: error: %s\n", e.what());
        return 1;
    }
}
