// The SDK-style tiled matrix product (the thesis's Algorithm 3) and cuBLAS SGEMM, with their device arrays.
#include "munch/matmul.hpp"

#include <cublas_v2.h>

#include <stdexcept>

#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "munch/device_buffer.hpp"

namespace munch::gpu {

namespace {

/// The tile's edge: a block of tile x tile threads computes a tile x tile tile of C.
constexpr int tile = 16;

// [sdk-matmul-begin]
/// C = A B for n x n row-major matrices. Block (bx, by) computes the tile of C at rows by*16.., columns
/// bx*16..; thread (tx, ty) one element of it. Per step the block stages a 16 x 16 tile of A (its rows, the
/// step's columns) and one of B (the step's rows, its columns) in shared memory, each thread loading one
/// element of each, and every thread adds the 16 products of its row of the A tile and column of the B
/// tile. Elements beyond n read as zero, so any n works (the SDK required multiples of the tile).
__global__ void sdk_matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    __shared__ float as[tile][tile];
    __shared__ float bs[tile][tile];
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    const int row = static_cast<int>(blockIdx.y) * tile + ty;
    const int col = static_cast<int>(blockIdx.x) * tile + tx;
    float sum = 0.0f;
    for (int step = 0; step < n; step += tile) {
        as[ty][tx] = row < n && step + tx < n ? a[static_cast<size_t>(row) * n + step + tx] : 0.0f;
        bs[ty][tx] = step + ty < n && col < n ? b[static_cast<size_t>(step + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < tile; ++k) sum += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) c[static_cast<size_t>(row) * n + col] = sum;
}
// [sdk-matmul-end]

/// Throws, naming @p what and the status, unless @p status is success.
void check_blas(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cuBLAS: ") + what + " failed: " + cublasGetStatusString(status));
}

/// One cuBLAS handle per process: creating it costs milliseconds that neither the thesis's timings nor
/// the product itself contain.
cublasHandle_t shared_handle() {
    static cublasHandle_t handle = [] {
        cublasHandle_t h{};
        check_blas(cublasCreate(&h), "create the handle");
        // The default math mode with compute type 32F below: FP32 arithmetic, never TF32.
        check_blas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "set the math mode");
        return h;
    }();
    return handle;
}

/// Enqueues C = A B of order @p n with @p kind on @p stream.
void launch(MatmulKind kind, const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
    const int ni = static_cast<int>(n);
    if (kind == MatmulKind::sdk) {
        const dim3 block(tile, tile);
        const dim3 grid(static_cast<unsigned>((n + tile - 1) / tile), static_cast<unsigned>((n + tile - 1) / tile));
        sdk_matmul<<<grid, block, 0, stream>>>(a, b, c, ni);
        harness::check(cudaGetLastError(), "launch the SDK matrix product");
        return;
    }
    const cublasHandle_t h = shared_handle();
    check_blas(cublasSetStream(h, stream), "set the stream");
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A B is column-major C^T = B^T A^T: B goes first.
    check_blas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b, CUDA_R_32F, ni, a, CUDA_R_32F, ni, &zero, c,
                            CUDA_R_32F, ni, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "multiply (SGEMM)");
}

}  // namespace

std::string matmul_name(MatmulKind kind) { return kind == MatmulKind::sdk ? "sdk-tiled-16" : "cublas-sgemm-fp32"; }

/// What a DeviceMatmul owns.
struct DeviceMatmul::State {
    MatmulKind kind;        ///< which product
    std::size_t n;          ///< the order of the matrices
    DeviceFloats a;         ///< A on the device
    DeviceFloats b;         ///< B on the device
    DeviceFloats c;         ///< C on the device
};

harness::DevicePlan matmul_plan(std::size_t n) {
    harness::DevicePlan plan("the matrix product of order " + std::to_string(n));
    plan.add<float>("A, B and C", n * n, 3);
    return plan;
}

/// Checks the device's free memory for matmul_plan(@p n); returns @p n (for DeviceMatmul's initialiser).
static std::size_t checked_order(std::size_t n) {
    harness::require_device_memory(matmul_plan(n), -1, "give smaller --sizes, or free the device (other processes on it)");
    return n;
}

DeviceMatmul::DeviceMatmul(MatmulKind kind, std::size_t n)
    : state_(new State{kind, checked_order(n), DeviceFloats(n * n), DeviceFloats(n * n), DeviceFloats(n * n)}) {
    if (kind == MatmulKind::cublas) (void)shared_handle();
}

DeviceMatmul::~DeviceMatmul() = default;

void DeviceMatmul::upload(const std::vector<float>& a, const std::vector<float>& b, cudaStream_t stream) {
    if (a.size() != state_->n * state_->n || b.size() != a.size())
        throw std::invalid_argument("DeviceMatmul::upload: A and B must hold n x n values");
    state_->a.upload(a, stream);
    state_->b.upload(b, stream);
}

void DeviceMatmul::run(cudaStream_t stream) {
    launch(state_->kind, state_->a.get(), state_->b.get(), state_->c.get(), state_->n, stream);
}

std::vector<float> DeviceMatmul::download(cudaStream_t stream) const { return state_->c.download(state_->n * state_->n, stream); }

std::vector<float> matmul_with_transfers(MatmulKind kind, const std::vector<float>& a, const std::vector<float>& b,
                                         std::size_t n, cudaStream_t stream) {
    std::vector<float> c;
    {
        DeviceMatmul m(kind, n);  // allocation
        m.upload(a, b, stream);
        m.run(stream);
        c = m.download(stream);
    }  // frees
    harness::check(cudaDeviceSynchronize(), "finish the frees");
    return c;
}

}  // namespace munch::gpu
