// A build without CUDA: the fit runs on the CPU only.
#include <stdexcept>

#include "mwsep/fit/evaluator.hpp"

namespace mwsep::fit {

bool have_gpu_evaluator() { return false; }

std::unique_ptr<BatchEvaluator> make_gpu_evaluator(const FitData&, const std::string&, const std::vector<int>&,
                                                   const std::vector<std::string>&) {
    throw std::runtime_error("this build has no CUDA backend: fit on the CPU (--backend cpu)");
}

int device_for_local_rank(int, const std::string&) { throw std::runtime_error("this build has no CUDA backend"); }

}  // namespace mwsep::fit
