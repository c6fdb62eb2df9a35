// A helper of the GPU-pressure test (run.sh): another process that takes a GPU's memory, so that the
// programs' memory check meets a device that is really full, not only the test hook's cap.
//
//   hold_device_memory probe                    each device's name, free and total bytes; exit 77 without one
//   hold_device_memory hold DEVICE LEAVE SECONDS  allocate on DEVICE until at most LEAVE bytes are free, print
//                                               "holding N bytes; F of T bytes free", then keep them SECONDS
//                                               seconds (or until killed) and exit
//
// Plain cudaMalloc (never managed memory), in chunks from 1 GiB down to 2 MiB; every CUDA call checked.
#include <cuda_runtime.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int fail(const char* what, cudaError_t status) {
    std::fprintf(stderr, "hold_device_memory: %s: %s (%s)\n", what, cudaGetErrorName(status), cudaGetErrorString(status));
    return 1;
}

int probe() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("no CUDA device\n");
        return 77;  // ctest's skip code for the test that asks
    }
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p{};
        if (const cudaError_t s = cudaGetDeviceProperties(&p, d); s != cudaSuccess) return fail("query a device", s);
        if (const cudaError_t s = cudaSetDevice(d); s != cudaSuccess) return fail("select a device", s);
        std::size_t free = 0, total = 0;
        if (const cudaError_t s = cudaMemGetInfo(&free, &total); s != cudaSuccess) return fail("query its memory", s);
        std::printf("device %d: %s, %zu of %zu bytes free\n", d, p.name, free, total);
    }
    return 0;
}

int hold(int device, std::size_t leave, long seconds) {
    if (const cudaError_t s = cudaSetDevice(device); s != cudaSuccess) return fail("select the device", s);
    std::vector<void*> held;
    std::size_t holding = 0, free = 0, total = 0;
    for (std::size_t chunk = std::size_t{1} << 30; chunk >= (std::size_t{2} << 20);) {
        if (const cudaError_t s = cudaMemGetInfo(&free, &total); s != cudaSuccess) return fail("query the memory", s);
        if (free <= leave) break;
        if (free - leave < chunk) {
            chunk /= 2;
            continue;
        }
        void* p = nullptr;
        const cudaError_t s = cudaMalloc(&p, chunk);
        if (s == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            chunk /= 2;
            continue;
        }
        if (s != cudaSuccess) return fail("allocate", s);
        held.push_back(p);
        holding += chunk;
    }
    if (const cudaError_t s = cudaMemGetInfo(&free, &total); s != cudaSuccess) return fail("query the memory", s);
    std::printf("holding %zu bytes; %zu of %zu bytes free\n", holding, free, total);
    std::fflush(stdout);
    for (long t = 0; t < seconds; ++t) ::sleep(1);
    for (void* p : held) cudaFree(p);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "probe" && argc == 2) return probe();
    if (command == "hold" && argc == 5) return hold(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10), std::atol(argv[4]));
    std::fprintf(stderr, "usage: hold_device_memory probe | hold DEVICE LEAVE_FREE_BYTES SECONDS\n");
    return 2;
}
