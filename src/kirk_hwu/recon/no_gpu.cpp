// The GPU reconstruction of a build without CUDA: it says so.
#include <stdexcept>
#include <string>

#include "harness/subcommands.hpp"
#include "kirk_hwu/recon/pipeline.hpp"

namespace kirk_hwu::recon {

ReconOutcome reconstruct_gpu(const ReconProblem&, const ReconSettings&, const GpuChoice&) {
    throw std::runtime_error(std::string("--backend cuda ") + harness::needs_cuda_build);
}

}  // namespace kirk_hwu::recon
