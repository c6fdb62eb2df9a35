// The GPU reconstruction of a build without CUDA: it says so.
#include <stdexcept>

#include "kirk_hwu/recon/pipeline.hpp"

namespace kirk_hwu::recon {

ReconOutcome reconstruct_gpu(const ReconProblem&, const ReconSettings&, const GpuChoice&) {
    throw std::runtime_error("this build has no CUDA (no nvcc was found when it was configured)");
}

}  // namespace kirk_hwu::recon
