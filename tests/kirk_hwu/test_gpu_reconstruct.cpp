// The GPU reconstruction against the CPU's: with the FP64 variants for Q and F^H d, the same solve in
// double precision gives the CPU's image to rounding, also with other block and chunk sizes; the gridding
// image equals the CPU's; the tuned single-precision SFU variants stay within a stated error of FP64.
// Without a GPU every test skips with a visible message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "gpu_support.hpp"
#include "kirk_hwu/recon/pipeline.hpp"

using namespace kirk_hwu;
using namespace kirk_hwu::recon;

namespace {

using testsupport::have_gpu;

const ReconProblem& small_problem() {
    static const ReconProblem p = make_recon_problem(recon_shape(Size::small), head_phantom());
    return p;
}

ReconSettings settings() {
    ReconSettings s;
    s.lambda = 1e-2;
    s.cg.max_iterations = 20;
    s.cg.tolerance = 0;  // the same number of iterations on both sides
    s.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return s;
}

const ReconOutcome& cpu_outcome() {
    static const ReconOutcome r = reconstruct_cpu(small_problem(), settings());
    return r;
}

GpuChoice fp64_choice() {
    GpuChoice c;
    c.q_variant = "q-constaos-regs-libm-u1-f64";
    c.fhd_variant = "fhd-constaos-regs-libm-u1-f64";
    return c;
}

double relative_difference(const ComplexVector& a, const ComplexVector& b) {
    return compare(split(b), split(a)).rel_l2;
}

}  // namespace

TEST(GpuReconstruction, Fp64MatchesTheCpuReconstruction) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU reconstruction NOT checked";
    const ReconOutcome gpu = reconstruct_gpu(small_problem(), settings(), fp64_choice());
    const ReconOutcome& cpu = cpu_outcome();
    ASSERT_EQ(gpu.cg.history.size(), cpu.cg.history.size());
    // Q and F^H d agree to ~1e-13 (different summation order and sin/cos); 20 CG steps amplify that by
    // at most the condition number's growth of rounding, far below 1e-8.
    EXPECT_LT(relative_difference(gpu.iterative, cpu.iterative), 1e-8);
    for (std::size_t k = 0; k < gpu.cg.history.size(); ++k)
        EXPECT_NEAR(gpu.cg.history[k].residual / cpu.cg.history[k].residual, 1.0, 1e-6) << "iteration " << k + 1;
    // Gridding: the same sums, atomics in another order.
    EXPECT_LT(relative_difference(gpu.gridded, cpu.gridded), 1e-12);
}

TEST(GpuReconstruction, LaunchSettingsChangeNothingBeyondRounding) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU reconstruction NOT checked";
    GpuChoice c = fp64_choice();
    c.q_threads_per_block = c.fhd_threads_per_block = 128;
    c.q_chunk = c.fhd_chunk = 64;
    const ReconOutcome gpu = reconstruct_gpu(small_problem(), settings(), c);
    EXPECT_LT(relative_difference(gpu.iterative, cpu_outcome().iterative), 1e-8);
}

TEST(GpuReconstruction, TunedSfuVariantsStayWithinTheirBoundOfFp64) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU reconstruction NOT checked";
    // The default choice (the fastest kernels: shared-memory records, SFU sin and cos, unrolled 4 times).
    // Q and F^H d by the SFU variants are within 5e-3 of FP64 (their stated tolerance); the image of a
    // solve that amplifies errors by its condition number (λ = 10⁻², 20 iterations) is held to 5e-2.
    const ReconOutcome gpu = reconstruct_gpu(small_problem(), settings(), GpuChoice{});
    const double d = relative_difference(gpu.iterative, cpu_outcome().iterative);
    std::printf("SFU image against the FP64 CPU image: relative L2 difference %.3g\n", d);
    EXPECT_LT(d, 5e-2);
    EXPECT_GT(d, 0.0);  // the fast paths do differ: a zero would mean the FP64 path ran
}

TEST(GpuReconstruction, EachVariantIsCheckedAgainstFp64BeforeItIsTimed) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU reconstruction NOT checked";
    // The default choice is the study's fastest kernels; the check compares their first, untimed evaluation
    // with the CPU's FP64 sums at the check points and records how far it was.
    GpuChoice fastest;
    fastest.check_points = 64;
    const ReconOutcome r = reconstruct_gpu(small_problem(), settings(), fastest);
    EXPECT_EQ(r.q_check.points, 64u);
    EXPECT_EQ(r.fhd_check.points, 64u);
    EXPECT_EQ(r.q_check.tolerance, 5e-3);  // the special-function variants' stated tolerance
    EXPECT_LE(r.q_check.rel_l2, r.q_check.tolerance);
    EXPECT_LE(r.fhd_check.rel_l2, r.fhd_check.tolerance);
    EXPECT_GT(r.fhd_check.rel_l2, 0.0);  // single precision with SFU sin and cos: not the FP64 sums
    // FP64 variants agree with the CPU's FP64 sums to rounding at the same points.
    const ReconOutcome d = reconstruct_gpu(small_problem(), settings(), fp64_choice());
    EXPECT_LT(d.q_check.rel_l2, 1e-11);
    EXPECT_LT(d.fhd_check.rel_l2, 1e-11);
}

TEST(GpuReconstruction, TheDocumentsKernelsAndTheFastestGiveTheSameImage) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU reconstruction NOT checked";
    // The fastest kernels keep the documents' F8 arithmetic (the same per-pair operations in the same
    // order); only where the samples are read from differs, so the images agree to float rounding.
    GpuChoice documents;
    documents.q_variant = "q-constaos-regs-sfu-u4-f32";
    documents.fhd_variant = "fhd-constaos-regs-sfu-u4-f32";
    const ReconOutcome a = reconstruct_gpu(small_problem(), settings(), documents);
    const ReconOutcome b = reconstruct_gpu(small_problem(), settings(), GpuChoice{});
    EXPECT_LT(relative_difference(a.iterative, b.iterative), 1e-5);
}

TEST(GpuReconstruction, RefusesAVariantOfTheWrongComputation) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU reconstruction NOT checked";
    GpuChoice c;
    c.q_variant = c.fhd_variant;
    EXPECT_THROW(reconstruct_gpu(small_problem(), settings(), c), std::invalid_argument);
}
