// The mixture terms and memberships (likelihood/mixture.hpp) are one function for the host and the device: run in a
// kernel, they give each star the probabilities the CPU separation gives it (to the rounding of a fused
// multiply-add the device compiler may form in the sum of the terms).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "gpu_support.hpp"
#include "mwsep/cpu/integrators.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/likelihood/mixture.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "test_support.hpp"

namespace {

constexpr int max_components = 8;

__global__ void memberships(int stars, int components, const double* densities, const double* integrals,
                            const double* weights, double* probability) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= stars) return;
    double terms[max_components];
    const double total = mwsep::likelihood::mixture_terms(components, densities + i * components, integrals, weights, terms);
    mwsep::likelihood::membership(components, terms, total, probability + i * components);
}

void check(cudaError_t e, const char* what) { ASSERT_EQ(e, cudaSuccess) << what << ": " << cudaGetErrorString(e); }

}  // namespace

TEST(GpuMixture, TheDeviceGivesEveryStarTheHostsMembership) {
    if (!testsupport::have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto ap = mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string());
    const auto s = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
    mwsep::generate::Options o;
    o.count = 500;
    const auto stars = mwsep::generate::generate_catalogue(s, o).stars;
    const auto integrals = mwsep::cpu::integrate_fast(s, 0);
    const auto w = mwsep::likelihood::mixture_weights(s.model);
    const int k = 1 + static_cast<int>(s.streams.size());
    const int n = static_cast<int>(stars.size());
    std::vector<double> dens(static_cast<std::size_t>(n) * k), host(dens.size());
    std::vector<double> integral{integrals.background}, weight{w.background};
    for (std::size_t t = 0; t < s.streams.size(); ++t) integral.push_back(integrals.streams[t]), weight.push_back(w.streams[t]);
    for (int i = 0; i < n; ++i) {
        mwsep::likelihood::star_densities(s, stars.l[i], stars.b[i], stars.r[i], &dens[i * k]);
        mwsep::likelihood::star_membership(w, integrals, &dens[i * k], &host[i * k]);
    }
    double *d_dens = nullptr, *d_int = nullptr, *d_w = nullptr, *d_p = nullptr;
    check(cudaMalloc(&d_dens, sizeof(double) * dens.size()), "allocate");
    check(cudaMalloc(&d_int, sizeof(double) * k), "allocate");
    check(cudaMalloc(&d_w, sizeof(double) * k), "allocate");
    check(cudaMalloc(&d_p, sizeof(double) * dens.size()), "allocate");
    check(cudaMemcpy(d_dens, dens.data(), sizeof(double) * dens.size(), cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(d_int, integral.data(), sizeof(double) * k, cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(d_w, weight.data(), sizeof(double) * k, cudaMemcpyHostToDevice), "upload");
    check(cudaMemset(d_p, 0xff, sizeof(double) * dens.size()), "poison");  // a star never written stays NaN
    memberships<<<(n + 63) / 64, 64>>>(n, k, d_dens, d_int, d_w, d_p);
    check(cudaGetLastError(), "launch");
    std::vector<double> device(dens.size());
    check(cudaMemcpy(device.data(), d_p, sizeof(double) * dens.size(), cudaMemcpyDeviceToHost), "download");
    for (double* p : {d_dens, d_int, d_w, d_p}) cudaFree(p);
    for (std::size_t j = 0; j < device.size(); ++j)
        EXPECT_NEAR(device[j], host[j], 4e-16 * std::max(1.0, std::abs(host[j]))) << "star " << j / k << " component " << j % k;
}
