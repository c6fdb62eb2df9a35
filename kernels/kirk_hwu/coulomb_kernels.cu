/// @file coulomb_kernels.cu
/// @brief Direct Coulomb summation: the atom placements, the two ways to form a term, the lattice points a
/// thread owns (all policies), the one kernel template every step D0–D4 instantiates, the host loop over
/// slices and staged chunks, the device copy, and the registration of every Coulomb variant.
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "gpu_variants.hpp"
#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "registration.hpp"

namespace kirk_hwu::gpu {

/// The constant-memory chunk of atoms: 64 KB, 4096 atoms of four floats.
__constant__ float4 coulomb_atoms[4096];

// [atom-policies-begin]
/// Atoms read from global memory, all of a slice in one launch (step D0).
struct AtomsGlobal {
    static constexpr const char* name = "global";  ///< memory part of the variant name
    static constexpr int tile = INT_MAX;           ///< atoms a block stages at a time (none)
    /// Kernel argument: the atoms of the launch.
    struct Source {
        const float4* atoms;  ///< first atom of the launch
    };
    /// All atoms in one launch.
    static int chunk(int, int atoms) { return atoms; }
    /// Points the source at @p atoms.
    static Source stage(const float4* atoms, int, cudaStream_t) { return {atoms}; }
    /// Nothing to stage inside the block.
    __device__ static void stage_tile(const Source&, float4*, int, int) {}
    /// Atom @p j of the launch.
    __device__ static float4 get(const Source& s, const float4*, int j, int) { return s.atoms[j]; }
};

/// Chunks of atoms copied into constant memory, one launch per slice and chunk (steps D1–D4).
struct AtomsConstant {
    static constexpr const char* name = "constant";  ///< memory part of the variant name
    static constexpr int tile = INT_MAX;             ///< atoms a block stages at a time (none)
    /// Kernel argument: nothing, the atoms are in the constant bank.
    struct Source {};
    /// The requested chunk, capped at the bank's 4096 atoms.
    static int chunk(int requested, int) { return requested > 0 && requested < 4096 ? requested : 4096; }
    /// Copies @p count atoms into the bank (device to device, on the stream).
    static Source stage(const float4* atoms, int count, cudaStream_t stream) {
        harness::check(cudaMemcpyToSymbolAsync(coulomb_atoms, atoms, sizeof(float4) * count, 0,
                                               cudaMemcpyDeviceToDevice, stream),
                       "copy a chunk of atoms to constant memory");
        return {};
    }
    /// Nothing to stage inside the block.
    __device__ static void stage_tile(const Source&, float4*, int, int) {}
    /// Atom @p j of the chunk.
    __device__ static float4 get(const Source&, const float4*, int j, int) { return coulomb_atoms[j]; }
};

/// Atoms loaded by each block into shared memory a tile at a time, all of a slice in one launch.
struct AtomsShared {
    static constexpr const char* name = "shared";  ///< memory part of the variant name
    static constexpr int tile = 1024;              ///< atoms per tile (16 KB)
    /// Kernel argument: the atoms in global memory.
    struct Source {
        const float4* atoms;  ///< first atom of the launch
    };
    /// All atoms in one launch.
    static int chunk(int, int atoms) { return atoms; }
    /// Points the source at @p atoms.
    static Source stage(const float4* atoms, int, cudaStream_t) { return {atoms}; }
    /// The block copies atoms [@p begin, @p begin + @p count) into @p smem; every thread takes part.
    __device__ static void stage_tile(const Source& s, float4* smem, int begin, int count) {
        const int threads = blockDim.x * blockDim.y, me = threadIdx.y * blockDim.x + threadIdx.x;
        __syncthreads();
        for (int a = me; a < count; a += threads) smem[a] = s.atoms[begin + a];
        __syncthreads();
    }
    /// Atom @p j of the launch, from the tile that starts at @p tile_begin.
    __device__ static float4 get(const Source&, const float4* smem, int j, int tile_begin) { return smem[j - tile_begin]; }
};
// [atom-policies-end]

// [term-policies-begin]
/// q / sqrt(r²), dz formed in the kernel from the atom's z (steps D0, D1).
struct SqrtDivide {
    static constexpr const char* name = "sqrt";  ///< math part of the variant name
    static constexpr bool host_dz = false;       ///< the atoms carry z
    /// dz² of an atom whose third value is its z, at slice height @p z.
    __device__ static float dz_squared(float atom_z, float z) {
        const float dz = z - atom_z;
        return dz * dz;
    }
    /// The term of charge @p q at squared distance @p r2.
    __device__ static float term(float q, float r2) { return q / sqrtf(r2); }
};
/// q · rsqrt(r²), dz² pre-computed per slice on the host (step D2).
struct ReciprocalSqrt {
    static constexpr const char* name = "rsqrt";  ///< math part of the variant name
    static constexpr bool host_dz = true;         ///< the atoms carry dz² of the slice
    /// dz², already in the atom's third value.
    __device__ static float dz_squared(float atom_dz2, float) { return atom_dz2; }
    /// The term of charge @p q at squared distance @p r2.
    __device__ static float term(float q, float r2) { return q * rsqrtf(r2); }
};
// [term-policies-end]

// [point-policies-begin]
/// @p P neighbouring points in x per thread (P = 1: one point per thread, D0–D2; P = 4: step D3).
template <int P>
struct Adjacent {
    static constexpr int points = P;  ///< lattice points per thread
    /// The name part: p1, adjacent4, ...
    static std::string name() { return P == 1 ? "p1" : "adjacent" + std::to_string(P); }
    /// The thread's first column.
    __device__ static int first() { return (blockIdx.x * blockDim.x + threadIdx.x) * P; }
    /// Columns between a thread's points.
    __device__ static int stride() { return 1; }
};
/// @p P points per thread, a block's width apart, so that each of the thread's loads and stores of the
/// lattice is coalesced across the warp (step D4).
template <int P>
struct Coalesced {
    static constexpr int points = P;  ///< lattice points per thread
    /// The name part: coalesced4, ...
    static std::string name() { return "coalesced" + std::to_string(P); }
    /// The thread's first column.
    __device__ static int first() { return blockIdx.x * blockDim.x * P + threadIdx.x; }
    /// Columns between a thread's points.
    __device__ static int stride() { return blockDim.x; }
};
// [point-policies-end]

// [coulomb-kernel-begin]
/// One slice k of the lattice: each thread adds the terms of the launch's @p count atoms to its points.
template <class Memory, class Math, class Points>
__global__ void coulomb_slice(const __grid_constant__ typename Memory::Source source, int count, float* grid, int gx,
                              int gy, int k, float h) {
    constexpr int P = Points::points;
    extern __shared__ float4 tile[];
    const int i0 = Points::first(), step = Points::stride();
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const float y = lattice_coordinate(j, h), z = lattice_coordinate(k, h);
    float* row = grid + static_cast<std::size_t>(gx) * gy * k + static_cast<std::size_t>(gx) * j;
    float x[P], energy[P];
    // The running values of earlier chunks, read before the atom loop so that their latency is hidden.
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const int i = i0 + p * step;
        x[p] = lattice_coordinate(i, h);
        energy[p] = j < gy && i < gx ? row[i] : 0.0f;
    }
    for (int begin = 0; begin < count; begin += Memory::tile) {
        const int end = count - begin < Memory::tile ? count : begin + Memory::tile;
        Memory::stage_tile(source, tile, begin, end - begin);
        for (int a = begin; a < end; ++a) {
            const float4 atom = Memory::get(source, tile, a, begin);
            const float yz = row_distance(y - atom.y, Math::dz_squared(atom.z, z));
#pragma unroll
            for (int p = 0; p < P; ++p) energy[p] += Math::term(atom.w, squared_distance(x[p] - atom.x, yz));
        }
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const int i = i0 + p * step;
        if (j < gy && i < gx) row[i] = energy[p];
    }
}
// [coulomb-kernel-end]

// [coulomb-host-begin]
/// The host side: zero the lattice, then per slice and chunk stage the atoms and launch.
template <class Memory, class Math, class Points>
void compute_coulomb(CoulombDevice& d, const LaunchSettings& ls, cudaStream_t stream) {
    const int threads = ls.threads_per_block > 0 ? ls.threads_per_block : 256;
    if (threads % 16 != 0 || threads > 1024)
        throw std::invalid_argument("Coulomb variants need threads per block a multiple of 16, at most 1024");
    const dim3 block(16, threads / 16);
    const dim3 blocks((d.gx + 16 * Points::points - 1) / (16 * Points::points), (d.gy + block.y - 1) / block.y);
    const std::size_t shared = Memory::tile == INT_MAX ? 0 : sizeof(float4) * Memory::tile;
    const int chunk = Memory::chunk(ls.chunk, d.atoms);
    harness::check(cudaMemsetAsync(d.grid, 0, sizeof(float) * d.gx * d.gy * d.gz, stream), "zero the lattice");
    for (int k = 0; k < d.gz; ++k) {
        const float4* atoms = Math::host_dz ? d.per_slice + static_cast<std::size_t>(k) * d.atoms : d.raw;
        for (int first = 0; first < d.atoms; first += chunk) {
            const int count = std::min(chunk, d.atoms - first);
            const auto source = Memory::stage(atoms + first, count, stream);
            coulomb_slice<Memory, Math, Points><<<blocks, block, shared, stream>>>(source, count, d.grid, d.gx, d.gy, k,
                                                                                   d.spacing);
            harness::check(cudaGetLastError(), "launch the Coulomb kernel");
        }
    }
}
// [coulomb-host-end]

harness::DevicePlan coulomb_device_plan(std::size_t atoms, std::size_t points, std::size_t slices) {
    harness::DevicePlan plan("the Coulomb input of " + std::to_string(atoms) + " atoms and " + std::to_string(points) +
                             " lattice points");
    plan.add<float4>("the atoms", atoms).add<float4>("the per-slice atoms", slices * atoms).add<float>("the lattice", points);
    return plan;
}

CoulombDevice::CoulombDevice(const CoulombInput& in)
    : gx(in.gx), gy(in.gy), gz(in.gz), spacing(in.spacing), atoms(static_cast<int>(in.atom_count())) {
    harness::require_device_memory(coulomb_device_plan(in.atom_count(), in.points(), static_cast<std::size_t>(gz)), -1,
                                   "choose a smaller --size, or free the device (other processes on it)");
    // The host's pre-computation of step D2: for every slice, each atom's z replaced by (z_k − z)².
    std::vector<float4> slices(static_cast<std::size_t>(gz) * atoms);
    for (int k = 0; k < gz; ++k) {
        const float zk = lattice_coordinate(k, spacing);
        for (int a = 0; a < atoms; ++a) {
            const float dz = zk - in.atoms[4 * a + 2];
            slices[static_cast<std::size_t>(k) * atoms + a] =
                make_float4(in.atoms[4 * a], in.atoms[4 * a + 1], dz * dz, in.atoms[4 * a + 3]);
        }
    }
    try {
        harness::check(cudaMalloc(&raw, sizeof(float4) * atoms), "allocate the atoms");
        harness::check(cudaMalloc(&per_slice, sizeof(float4) * slices.size()), "allocate the per-slice atoms");
        harness::check(cudaMalloc(&grid, sizeof(float) * in.points()), "allocate the lattice");
        harness::check(cudaMemcpy(raw, in.atoms.data(), sizeof(float4) * atoms, cudaMemcpyHostToDevice), "copy the atoms");
        harness::check(cudaMemcpy(per_slice, slices.data(), sizeof(float4) * slices.size(), cudaMemcpyHostToDevice),
                       "copy the per-slice atoms");
    } catch (...) {
        cudaFree(raw), cudaFree(per_slice), cudaFree(grid);
        throw;
    }
}

CoulombDevice::~CoulombDevice() {
    cudaFree(raw), cudaFree(per_slice), cudaFree(grid);
}

std::vector<double> CoulombDevice::download(const std::vector<std::size_t>& indices) const {
    std::vector<float> all(static_cast<std::size_t>(gx) * gy * gz);
    harness::check(cudaMemcpy(all.data(), grid, sizeof(float) * all.size(), cudaMemcpyDeviceToHost), "copy the lattice back");
    if (indices.empty()) return {all.begin(), all.end()};
    std::vector<double> out;
    for (std::size_t i : indices) out.push_back(all.at(i));
    return out;
}

/// Tolerances against the FP64 reference (relative L2 and max|diff|/max|ref|): float sums of up to 10⁵
/// terms with an exactly rounded sqrt and divide, and with rsqrtf (at most 2 ulp).
constexpr double sqrt_tolerance = 1e-4;
/// Tolerance of the rsqrt variants (see sqrt_tolerance).
constexpr double rsqrt_tolerance = 2e-4;

/// Registers the variant of the three policies, its name composed from theirs.
template <class Memory, class Math, class Points>
static void add(harness::Registry<Variant>& r, const std::string& step, const std::string& what) {
    Variant v;
    v.name = std::string("dcs-") + Memory::name + "-" + Math::name + "-" + Points::name();
    v.problem = Problem::coulomb;
    v.step = step;
    v.description = what;
    v.tolerance = Math::host_dz ? rsqrt_tolerance : sqrt_tolerance;
    v.default_threads = 256;
    v.default_chunk = Memory::chunk(0, INT_MAX) == INT_MAX ? 0 : Memory::chunk(0, INT_MAX);
    v.coulomb = &compute_coulomb<Memory, Math, Points>;
    v.kernel = reinterpret_cast<const void*>(&coulomb_slice<Memory, Math, Points>);
    v.dynamic_shared = Memory::tile == INT_MAX ? 0 : sizeof(float4) * Memory::tile;
    r.add(v);
}

void add_coulomb_variants(harness::Registry<Variant>& r) {
    // [coulomb-ladder-begin]
    add<AtomsGlobal, SqrtDivide, Adjacent<1>>(r, "D0", "thread per lattice point, atoms in global memory");
    add<AtomsConstant, SqrtDivide, Adjacent<1>>(r, "D1", "atoms in constant-memory chunks, running value read first");
    add<AtomsConstant, ReciprocalSqrt, Adjacent<1>>(r, "D2", "dz² pre-computed on the host, rsqrt");
    add<AtomsConstant, ReciprocalSqrt, Adjacent<4>>(r, "D3", "four neighbouring points per thread");
    add<AtomsConstant, ReciprocalSqrt, Coalesced<4>>(r, "D4", "four points per thread, a block's width apart");
    // [coulomb-ladder-end]
    add<AtomsConstant, ReciprocalSqrt, Coalesced<2>>(r, "fusion", "D4 with two points per thread");
    add<AtomsConstant, ReciprocalSqrt, Coalesced<8>>(r, "fusion", "D4 with eight points per thread");
    add<AtomsGlobal, ReciprocalSqrt, Coalesced<4>>(r, "space", "D4 with atoms in global memory");
    add<AtomsShared, ReciprocalSqrt, Coalesced<4>>(r, "space", "D4 with atoms tiled in shared memory");
}

}  // namespace kirk_hwu::gpu
