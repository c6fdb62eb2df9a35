#include "ryoo/cpu/cpu_blas.hpp"

#include <stdexcept>

#if defined(RYOO_WITH_OPENBLAS)
#include <cblas.h>
#endif

namespace ryoo {

#if defined(RYOO_WITH_OPENBLAS)
bool cpu_blas_available() { return true; }

std::string cpu_blas_description() {
    return std::string(openblas_get_config()) + " (" + openblas_get_corename() + ")";
}

void cpu_sgemm(const float* a, const float* b, float* c, int n, int threads) {
    openblas_set_num_threads(threads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
#else
bool cpu_blas_available() { return false; }

std::string cpu_blas_description() { return "none: the build found no OpenBLAS (libopenblas-dev)"; }

void cpu_sgemm(const float*, const float*, float*, int, int) {
    throw std::runtime_error("this build has no CPU BLAS: " + cpu_blas_description());
}
#endif

}  // namespace ryoo
