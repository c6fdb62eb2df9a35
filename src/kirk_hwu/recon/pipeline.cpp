#include "kirk_hwu/recon/pipeline.hpp"

#include <chrono>

namespace kirk_hwu::recon {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

CgResult solve_cpu(const ToeplitzKernel& kernel, int grid, double lambda, const ComplexVector& b, const CgSettings& cg) {
    const auto apply = [&](const ComplexVector& x) {
        ComplexVector y = toeplitz_apply(kernel, x);
        const ComplexVector r = roughness_apply(grid, x);
        for (std::size_t i = 0; i < y.size(); ++i) y[i] += lambda * r[i];
        return y;
    };
    return conjugate_gradient(apply, b, cg);
}

ReconOutcome reconstruct_cpu(const ReconProblem& problem, const ReconSettings& settings) {
    ReconOutcome out;
    const int g = problem.shape.grid;
    out.q_pairs = static_cast<double>(problem.samples()) * problem.q.voxels();
    out.fhd_pairs = static_cast<double>(problem.samples()) * problem.voxels();
    const std::vector<std::size_t> no_subset;
    ToeplitzKernel kernel;
    auto t0 = std::chrono::steady_clock::now();
    if (!settings.iterative) {
        out.gridded = gridding(problem.fhd, settings.gridding);
        out.times.gridding_ms = ms_since(t0);
        return out;
    }
    if (!settings.direct) {
        t0 = std::chrono::steady_clock::now();
        const std::vector<double> q =
            mri_reference(problem.q, MriOutput::q, spread_subset(problem.q.voxels(), problem.q.voxels()), settings.threads);
        out.times.q_ms = ms_since(t0);
        t0 = std::chrono::steady_clock::now();
        kernel = toeplitz_kernel(g, q);
        out.times.q_fft_ms = ms_since(t0);
        if (settings.keep_inputs) out.q_values = q;
    }
    t0 = std::chrono::steady_clock::now();
    const std::vector<double> fhd =
        mri_reference(problem.fhd, MriOutput::fhd, spread_subset(problem.voxels(), problem.voxels()), settings.threads);
    ComplexVector b(problem.voxels());
    for (std::size_t n = 0; n < b.size(); ++n) b[n] = {fhd[n], fhd[b.size() + n]};
    out.times.fhd_ms = ms_since(t0);
    if (settings.keep_inputs) out.fhd_values = b;
    t0 = std::chrono::steady_clock::now();
    if (settings.direct) {
        const auto apply = [&](const ComplexVector& x) {
            ComplexVector y = adjoint_direct(problem.fhd, forward_direct(problem.fhd, x, settings.threads), settings.threads);
            const ComplexVector r = roughness_apply(g, x);
            for (std::size_t i = 0; i < y.size(); ++i) y[i] += settings.lambda * r[i];
            return y;
        };
        out.cg = conjugate_gradient(apply, b, settings.cg);
    } else {
        out.cg = solve_cpu(kernel, g, settings.lambda, b, settings.cg);
    }
    out.times.solver_ms = ms_since(t0);
    out.iterative = out.cg.x;
    t0 = std::chrono::steady_clock::now();
    out.gridded = gridding(problem.fhd, settings.gridding);
    out.times.gridding_ms = ms_since(t0);
    return out;
}

}  // namespace kirk_hwu::recon
