// cuBLAS SGEMM as the reference the hand-written kernels are measured against: plain FP32 (compute type
// CUBLAS_COMPUTE_32F, which never converts to TF32) and, labelled apart, with TF32 tensor cores.
#include <cublas_v2.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "ryoo/core/product_check.hpp"
#include "ryoo/variants.hpp"

namespace ryoo {
namespace {

void check_blas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cuBLAS error while trying to ") + what + ": " + cublasGetStatusString(s));
}

/// A cuBLAS handle destroyed with its last user.
std::shared_ptr<cublasContext> make_handle() {
    cublasHandle_t h = nullptr;
    check_blas(cublasCreate(&h), "create a handle");
    return {h, [](cublasHandle_t p) { cublasDestroy(p); }};
}

GemmVariant library_variant(const std::string& name, const std::string& summary, cublasComputeType_t compute,
                            double input_roundoff) {
    GemmVariant v;
    v.name = name;
    v.step = "library";
    v.summary = summary;
    v.multiple = 1;
    v.input_roundoff = input_roundoff;
    v.prepare = [compute] {
        auto handle = make_handle();
        // The compute type decides: CUBLAS_COMPUTE_32F never converts to TF32 (the default math mode).
        check_blas(cublasSetMathMode(handle.get(), CUBLAS_DEFAULT_MATH), "set the math mode");
        GemmLaunch l;
        l.facts = {nullptr, 0, 0, 0};
        l.run = [handle, compute](const float* a, const float* b, float* c, int n, cudaStream_t s) {
            check_blas(cublasSetStream(handle.get(), s), "set the stream");
            const float one = 1, zero = 0;
            // Row-major C = A B is column-major C^T = B^T A^T: pass B first.
            check_blas(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, CUDA_R_32F, n, a, CUDA_R_32F,
                                    n, &zero, c, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT),
                       "multiply");
        };
        return l;
    };
    return v;
}

}  // namespace

void add_library_variants(harness::Registry<GemmVariant>& r) {
    r.add(library_variant("cublas-fp32", "cuBLAS SGEMM, FP32 arithmetic (compute type 32F: no TF32)", CUBLAS_COMPUTE_32F, 0));
    r.add(library_variant("cublas-tf32", "cuBLAS SGEMM on TF32 tensor cores (inputs rounded to 10 fraction bits)",
                          CUBLAS_COMPUTE_32F_FAST_TF32, tf32_input_roundoff));
}

}  // namespace ryoo
