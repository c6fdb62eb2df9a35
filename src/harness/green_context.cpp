#include "harness/green_context.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "harness/check.hpp"

namespace harness {
namespace {

// The driver API is reached through the runtime's entry-point lookup, so that the program does not link
// against libcuda and still starts (and runs its CPU paths) on machines without a GPU driver.
template <class Fn>
Fn driver_function(const char* name) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    check(cudaGetDriverEntryPointByVersion(name, &fn, CUDART_VERSION, cudaEnableDefault, &status),
          "look up a driver function");
    if (!fn || status != cudaDriverEntryPointSuccess)
        throw CudaError(std::string("the CUDA driver does not provide ") + name + " (green contexts need CUDA 12.4+)");
    return reinterpret_cast<Fn>(fn);
}
#define MWSEP_DRIVER(name) driver_function<decltype(&name)>(#name)

void check_driver(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS)
        throw CudaError(std::string("CUDA driver error while trying to ") + what + " (CUresult " + std::to_string(r) + ")");
}

}  // namespace

GreenContext::GreenContext(int device, int sm_count) {
    CUdevice dev;
    check_driver(MWSEP_DRIVER(cuDeviceGet)(&dev, device), "get the device");
    CUdevResource all{};
    check_driver(MWSEP_DRIVER(cuDeviceGetDevResource)(dev, &all, CU_DEV_RESOURCE_TYPE_SM), "query the device's SMs");
    if (sm_count <= 0 || static_cast<unsigned>(sm_count) > all.sm.smCount)
        throw CudaError("cannot restrict to " + std::to_string(sm_count) + " SMs: the device has " +
                        std::to_string(all.sm.smCount));
    CUdevResource group{};
    CUdevResource rest{};
    unsigned groups = 1;
    check_driver(MWSEP_DRIVER(cuDevSmResourceSplitByCount)(&group, &groups, &all, &rest, 0, static_cast<unsigned>(sm_count)),
                 "split the SMs");
    if (groups != 1) throw CudaError("could not form a group of " + std::to_string(sm_count) + " SMs");
    granted_ = static_cast<int>(group.sm.smCount);
    CUdevResourceDesc desc;
    check_driver(MWSEP_DRIVER(cuDevResourceGenerateDesc)(&desc, &group, 1), "describe the SM group");
    CUgreenCtx green;
    check_driver(MWSEP_DRIVER(cuGreenCtxCreate)(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), "create a green context");
    green_ = green;
    try {
        CUcontext previous = nullptr;
        check_driver(MWSEP_DRIVER(cuCtxGetCurrent)(&previous), "read the current context");
        previous_ = previous;
        CUcontext ctx;
        check_driver(MWSEP_DRIVER(cuCtxFromGreenCtx)(&ctx, green), "convert the green context");
        check_driver(MWSEP_DRIVER(cuCtxSetCurrent)(ctx), "make the green context current");
        context_ = ctx;
    } catch (...) {
        MWSEP_DRIVER(cuGreenCtxDestroy)(green);  // a constructor that throws runs no destructor
        throw;
    }
}

bool GreenContext::is_current() const {
    CUcontext current = nullptr;
    check_driver(MWSEP_DRIVER(cuCtxGetCurrent)(&current), "read the current context");
    return current == static_cast<CUcontext>(context_);
}

GreenContext::~GreenContext() {
    try {
        MWSEP_DRIVER(cuCtxSetCurrent)(static_cast<CUcontext>(previous_));
        if (green_) MWSEP_DRIVER(cuGreenCtxDestroy)(static_cast<CUgreenCtx>(green_));
    } catch (const CudaError&) {
        // Nothing sensible to do while unwinding; the process is about to report its own error.
    }
}

}  // namespace harness
