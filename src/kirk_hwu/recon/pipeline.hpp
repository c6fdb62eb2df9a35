/// @file pipeline.hpp
/// @brief One whole reconstruction, on the CPU or the GPU: Q on the doubled grid and its Toeplitz spectrum,
/// F^H d, conjugate gradients on (AᴴA + λR) ρ = Aᴴd, and the gridding image beside it, each stage timed.
/// As in the documents' table, the reconstruction time is F^H d plus the solver: Q and its spectrum depend
/// only on the trajectory and are computed once per scanner configuration.
#pragma once

#include <cstddef>
#include <string>

#include "kirk_hwu/recon/nufft.hpp"
#include "kirk_hwu/recon/problem.hpp"
#include "kirk_hwu/recon/solve.hpp"

namespace kirk_hwu::recon {

/// What a reconstruction solves and how.
struct ReconSettings {
    double lambda = 1e-2;        ///< weight of the roughness penalty R
    CgSettings cg;               ///< when the solver stops
    GriddingSettings gridding;   ///< the gridding baseline's grid and kernel
    int threads = 1;             ///< CPU threads (the CPU path; the GPU path's host work is serial)
    bool direct = false;         ///< CPU only: apply AᴴA directly (A then Aᴴ) instead of through Toeplitz
    /// A different algorithm: F^H d by the adjoint NUFFT and AᴴA as its forward, the density weights and its
    /// adjoint (no Q); its error against the direct sums is the NUFFT's, controlled by nufft.tolerance.
    bool use_nufft = false;
    NufftSettings nufft;         ///< the NUFFT's accuracy and grid (with use_nufft)
    bool iterative = true;       ///< run Q, F^H d and the solver (false: the gridding baseline only)
    bool keep_inputs = false;    ///< keep Q and F^H d in the outcome (q_values, fhd_values) for a solver run apart
};

/// The GPU's choices: the study's variants for Q and F^H d, with their launch settings (0: the variant's).
/// The defaults are the study's fastest correct kernels (samples tiled in shared memory, special-function
/// sin and cos, inner loop unrolled 4 times: the fastest space of the memory-space comparison); the
/// documents' constant-memory kernels stay selectable by name.
struct GpuChoice {
    std::string q_variant = "q-shared-regs-sfu-u4-f32";      ///< the Q variant
    std::string fhd_variant = "fhd-shared-regs-sfu-u4-f32";  ///< the F^H d variant
    int q_threads_per_block = 0;    ///< threads per block of the Q variant
    int q_chunk = 0;                ///< samples per staged chunk of the Q variant
    int fhd_threads_per_block = 0;  ///< threads per block of the F^H d variant
    int fhd_chunk = 0;              ///< samples per staged chunk of the F^H d variant
    /// Voxels (spread over the grid) at which each variant's first evaluation of Q and of F^H d is compared
    /// with the FP64 CPU reference before the evaluation that is timed; outside the variant's tolerance the
    /// reconstruction is refused (std::runtime_error) before any time is taken.
    std::size_t check_points = 256;
};

/// How far one variant's evaluation was from the FP64 reference at the check points.
struct VariantCheck {
    std::size_t points = 0;  ///< voxels compared (0: not checked)
    double rel_l2 = 0;       ///< relative L2 error over them
    double max_rel = 0;      ///< max |out − ref| / max |ref| over them
    double tolerance = 0;    ///< the variant's stated tolerance
};

/// Time per stage [ms]: wall clock on the CPU, CUDA events on the GPU (uploads excluded).
struct StageTimes {
    double q_ms = 0;         ///< Q on the (2N₁)³ offsets grid
    double q_fft_ms = 0;     ///< the circulant's FFT (the Toeplitz spectrum)
    double fhd_ms = 0;       ///< F^H d
    double mu_ms = 0;        ///< GPU: the μ kernel (loop fission, F1a) that forms F^H d's weights, in the upload
    double solver_ms = 0;    ///< conjugate gradients
    double gridding_ms = 0;  ///< the whole gridding reconstruction
    double nufft_plan_ms = 0;  ///< GPU, the NUFFT path: its plan (sorting the samples, the FFT's plan), once per trajectory
    /// The reconstruction time as the documents count it: F^H d plus the solver.
    double recon_ms() const { return fhd_ms + solver_ms; }
};

/// A reconstruction's images, iterations and times.
struct ReconOutcome {
    ComplexVector iterative;   ///< the conjugate-gradient image
    ComplexVector gridded;     ///< the gridding image
    CgResult cg;               ///< iterations (cg.x is the iterative image too, on the CPU)
    StageTimes times;          ///< per stage
    double q_pairs = 0;        ///< sample-voxel pairs of Q: M · (2N₁)³
    double fhd_pairs = 0;      ///< sample-voxel pairs of F^H d: M · N₁³
    std::vector<double> q_values;  ///< with keep_inputs: Q on the offsets grid, real parts then imaginary parts
    ComplexVector fhd_values;      ///< with keep_inputs: F^H d, the solver's right-hand side
    VariantCheck q_check;      ///< GPU: the Q variant against FP64 before it was timed
    VariantCheck fhd_check;    ///< GPU: the F^H d variant against FP64 before it was timed
    NufftGrid nufft;           ///< with use_nufft: the grid and kernel the NUFFT ran with
};

/// Conjugate gradients on (AᴴA + λR) ρ = @p b with AᴴA applied through @p kernel, on the CPU in double precision:
/// the solver of reconstruct_cpu, and the CPU solver `kirk_hwu solver` times beside the GPU's.
CgResult solve_cpu(const ToeplitzKernel& kernel, int grid, double lambda, const ComplexVector& b, const CgSettings& cg);

/// The CPU reconstruction, all in double precision.
ReconOutcome reconstruct_cpu(const ReconProblem& problem, const ReconSettings& settings);

/// The GPU reconstruction: Q and F^H d by the chosen variants of the study, the solver and gridding in
/// double precision with cuFFT. std::runtime_error in a build without CUDA.
ReconOutcome reconstruct_gpu(const ReconProblem& problem, const ReconSettings& settings, const GpuChoice& choice);

}  // namespace kirk_hwu::recon
