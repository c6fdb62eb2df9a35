// The GPU commands of a build without CUDA: each says so and fails.
#include <cstdio>

#include "kirk_hwu/app/commands.hpp"

namespace kirk_hwu::app {

namespace {
int without_cuda(const char* command) {
    std::fprintf(stderr, "kirk_hwu %s: this build has no CUDA (no nvcc was found when it was configured)\n", command);
    return 1;
}
}  // namespace

int command_variants(const std::vector<std::string>&) { return without_cuda("variants"); }
int command_bench(const std::vector<std::string>&) { return without_cuda("bench"); }
int command_rates(const std::vector<std::string>&) { return without_cuda("rates"); }
int command_nufft(const std::vector<std::string>&) { return without_cuda("nufft"); }

}  // namespace kirk_hwu::app
