/// @file gpu_variants.hpp
/// @brief The GPU variants of both computations as the host sees them: a named entry per variant (its step
/// in the documents, what it changes, its stated tolerance) and a device copy of an input that any variant
/// of its computation can evaluate, repeatedly, on a stream. Plain C++: the CUDA code is behind it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/device_budget.hpp"
#include "harness/registry.hpp"
#include "kirk_hwu/inputs.hpp"
#include "kirk_hwu/pair_math.hpp"

namespace kirk_hwu::gpu {

/// The three computations a variant can belong to.
enum class Problem {
    mri_q,    ///< MRI Q
    mri_fhd,  ///< MRI F^H d
    coulomb,  ///< direct Coulomb summation
};
/// "mri-q", "mri-fhd" or "coulomb".
std::string problem_name(Problem p);
/// @p text as a Problem; std::invalid_argument naming the valid ones otherwise.
Problem parse_problem(const std::string& text);

/// Launch settings a benchmark may sweep; 0 keeps the variant's own default.
struct LaunchSettings {
    int threads_per_block = 0;  ///< threads per block (MRI: 1-D blocks; Coulomb: 16 × (this / 16) blocks)
    int chunk = 0;              ///< samples or atoms per staged chunk (constant memory, kernel parameters)
};

class MriDevice;
class CoulombDevice;

/// Evaluates a whole MRI output into the device's output arrays on @p stream.
using MriCompute = void (*)(MriDevice&, const LaunchSettings&, cudaStream_t);
/// Evaluates the whole potential lattice into the device's output on @p stream.
using CoulombCompute = void (*)(CoulombDevice&, const LaunchSettings&, cudaStream_t);

/// One variant: a name composed from its policies, the documents' step it reproduces, and its tolerance.
struct Variant {
    std::string name;         ///< e.g. "fhd-constaos-regs-sfu-u4-f32" (prefix q-, fhd- or dcs-)
    Problem problem;          ///< which computation
    std::string step;         ///< the documents' step (F0–F8, D0–D4) or "space" / "fp64" / "fusion" for ours
    std::string description;  ///< what the variant changes, in one line
    bool fp64 = false;        ///< computes in double precision
    double tolerance = 0;     ///< bound on both the relative L2 error and max|out − ref| / max|ref| against FP64
    int default_threads = 0;  ///< default threads per block
    int default_chunk = 0;    ///< default chunk (0: the variant does not stage chunks)
    const void* kernel = nullptr;      ///< the variant's kernel, for its registers and occupancy
    std::size_t dynamic_shared = 0;    ///< dynamic shared memory per block the variant launches with [bytes]
    MriCompute mri = nullptr;          ///< set for MRI variants
    CoulombCompute coulomb = nullptr;  ///< set for Coulomb variants
};

/// Every variant, in the documents' order per computation.
const harness::Registry<Variant>& variants();
/// The variants of @p p, in registration order.
std::vector<Variant> variants_of(Problem p);

/// A device copy of an MRI input: voxels, the k-space samples with their weights (computed on the GPU
/// by the μ kernel, step F1a) as separate arrays and as records, in float and in double, and the output.
class MriDevice {
public:
    /// Uploads @p in and prepares the weights of output @p out, in float and (unless @p with_fp64 is false,
    /// for a run of float variants only) in double; without them the f64 arrays stay null.
    MriDevice(const MriInput& in, MriOutput out, bool with_fp64 = true);
    ~MriDevice();
    MriDevice(const MriDevice&) = delete;
    MriDevice& operator=(const MriDevice&) = delete;
    /// Which sum this device computes.
    MriOutput output() const { return output_; }
    /// Number of voxels.
    int voxels() const { return voxels_; }
    /// Number of samples.
    int samples() const { return samples_; }
    /// The output (real parts, then imaginary parts) at @p indices, widened to double; all if empty.
    std::vector<double> download(const std::vector<std::size_t>& indices, bool fp64) const;

    /// Device arrays of one precision.
    template <class Real>
    struct Arrays {
        Real* x = nullptr;        ///< voxel x positions
        Real* y = nullptr;        ///< voxel y positions
        Real* z = nullptr;        ///< voxel z positions
        Real* kx = nullptr;       ///< sample kx (separate arrays)
        Real* ky = nullptr;       ///< sample ky
        Real* kz = nullptr;       ///< sample kz
        Real* wr = nullptr;       ///< sample weights, real parts (|φ|² for Q)
        Real* wi = nullptr;       ///< sample weights, imaginary parts (zero for Q)
        Real* records = nullptr;  ///< the samples as records of record_fields() values
        Real* out_r = nullptr;    ///< the output, real parts
        Real* out_i = nullptr;    ///< the output, imaginary parts
    };
    Arrays<float> f32;   ///< the float arrays
    Arrays<double> f64;  ///< the double arrays (the float inputs widened)
    std::vector<float> host_records;  ///< the float records on the host, for kernel-parameter staging
    float weights_ms = 0;             ///< time of the μ kernel (step F1a) that filled the float weights [ms]

private:
    MriOutput output_;
    int voxels_, samples_;
    std::vector<void*> owned_;
};

/// What MriDevice allocates at its peak for @p voxels voxels and @p samples samples of output @p out (with
/// the double-precision arrays unless @p with_fp64 is false): per precision the voxel positions and the
/// output (5 N values), the samples' coordinates and weights (5 M) and records; and, while the weights are
/// computed, the 7 float arrays of raw samples (freed after). MriDevice checks it before it allocates.
harness::DevicePlan mri_device_plan(std::size_t voxels, std::size_t samples, MriOutput out, bool with_fp64 = true);

/// What CoulombDevice allocates for @p atoms atoms and a lattice of @p points points in @p slices slices:
/// the atoms, the per-slice atoms and the lattice. CoulombDevice checks it before it allocates.
harness::DevicePlan coulomb_device_plan(std::size_t atoms, std::size_t points, std::size_t slices);

/// Floats per sample record of output @p out: kx, ky, kz and one weight (Q) or two (F^H d).
constexpr int record_fields(MriOutput out) { return out == MriOutput::q ? 4 : 5; }

/// A device copy of a Coulomb input: the atoms (x, y, z, q), the per-slice atoms with z replaced by dz²
/// (the host's pre-computation of step D2, done once before any timing), and the lattice.
class CoulombDevice {
public:
    /// Uploads @p in.
    explicit CoulombDevice(const CoulombInput& in);
    ~CoulombDevice();
    CoulombDevice(const CoulombDevice&) = delete;
    CoulombDevice& operator=(const CoulombDevice&) = delete;
    /// The lattice values at @p indices, widened to double; all if empty.
    std::vector<double> download(const std::vector<std::size_t>& indices) const;
    int gx;                     ///< lattice points along x
    int gy;                     ///< lattice points along y
    int gz;                     ///< lattice points along z
    float spacing;              ///< h
    int atoms;                  ///< number of atoms
    float4* raw = nullptr;      ///< atoms: x, y, z, q
    float4* per_slice = nullptr;  ///< gz × atoms: x, y, (z_k − z)², q
    float* grid = nullptr;      ///< the potential, GX·GY·k + GX·j + i
};

}  // namespace kirk_hwu::gpu
