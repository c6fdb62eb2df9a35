// The scaling emulation runs each evaluation inside a green context of a few SMs. An evaluation must
// leave that context current: if any step selects the device again, the runtime makes the primary
// context current and every later launch uses the whole GPU, which turns the emulation into a plain run.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "harness/green_context.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "test_support.hpp"

namespace {

TEST(GpuGreenContext, EvaluationsStayInTheGreenContext) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        (void)cudaGetLastError();
        GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    }
    const auto ap = mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string());
    const auto setup = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
    mwsep::generate::Options g;
    g.count = 2000;
    g.seed = 3;
    const auto stars = mwsep::generate::generate_catalogue(setup, g).stars;

    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the primary context exists before the green one
    harness::GreenContext green(0, 16);
    mwsep::cuda::LaunchOptions launch;
    launch.keep_context = true;
    for (const char* variant : {"shared-fast-unrolled-f32", "global-ieee-loop-f64", "modern-f64"}) {
        for (int round = 0; round < 2; ++round) {
            mwsep::cuda::evaluate(setup, stars, variant, -1, launch, true);
            EXPECT_TRUE(green.is_current()) << variant << ", evaluation " << round + 1
                                            << " left the green context: later work would use every SM";
        }
    }
}

}  // namespace
