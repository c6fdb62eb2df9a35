// The device memory check of mwsep on a GPU: every variant's plan (cuda::evaluation_plans) is exactly what
// evaluate() asks cudaMalloc for, counted by the harness's DeviceMemory; a cap of the free memory one byte
// below what the plan needs is refused before anything is allocated, and a cap of exactly that much is not.
// Without a GPU every test skips with a visible message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "harness/device_budget.hpp"
#include "harness/device_memory.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/devices.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "gpu_support.hpp"
#include "test_support.hpp"

namespace {

#define REQUIRE_GPU()                          \
    if (!testsupport::have_gpu()) GTEST_SKIP() << "no CUDA device: the device memory plans are not compared with allocations here"

struct Tiny {
    mwsep::geometry::IntegrationSetup setup;
    mwsep::model::StarCatalogue stars;
};

const Tiny& tiny() {
    static const Tiny t = [] {
        Tiny w;
        w.setup = mwsep::geometry::make_setup(mwsep::model::build_model(
            mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string())));
        mwsep::generate::Options g;
        g.count = 1000;
        g.envelope_mu = 80, g.envelope_nu = 8, g.envelope_r = 35;
        w.stars = mwsep::generate::generate_catalogue(w.setup, g).stars;
        return w;
    }();
    return t;
}

/// Sets the test hook's cap for one scope.
struct Cap {
    explicit Cap(std::size_t bytes) {
        ::setenv(harness::device_memory_limit_variable, std::to_string(bytes).c_str(), 1);
    }
    ~Cap() { ::unsetenv(harness::device_memory_limit_variable); }
};

TEST(GpuMemory, EveryVariantAllocatesExactlyWhatItsPlanSays) {
    REQUIRE_GPU();
    const auto& w = tiny();
    for (const auto& v : mwsep::cuda::variants()) {
        const auto plans = mwsep::cuda::evaluation_plans(w.setup, w.stars.size(), v, {0});
        ASSERT_EQ(plans.size(), 1u);
        const std::size_t before = harness::device_bytes_requested();
        const auto r = mwsep::cuda::evaluate(w.setup, w.stars, v, 0);
        const std::size_t allocated = harness::device_bytes_requested() - before;
        EXPECT_EQ(allocated, plans[0].plan.requested_bytes()) << v.name;
        // What the device's free memory dropped by, beside what the check counts for each phase (information:
        // other processes on the GPU move the free memory too).
        std::printf("%-28s planned %zu + %zu bytes (counted %zu + %zu); free memory dropped by %zu + %zu\n", v.name.c_str(),
                    plans[0].plan.phases()[0].requested(), plans[0].plan.phases()[1].requested(),
                    plans[0].plan.phases()[0].rounded(), plans[0].plan.phases()[1].rounded(), r.integral_device_bytes,
                    r.star_device_bytes);
    }
}

TEST(GpuMemory, ACapBelowThePlanIsRefusedBeforeAnyAllocation) {
    REQUIRE_GPU();
    const auto& w = tiny();
    for (const std::string name : {"modern-f64", "shared-fast-unrolled-f64", "compressed-f64"}) {
        const auto& v = mwsep::cuda::find_variant(name);  // no temporary argument: g++ 13's -Wdangling-reference
        const std::size_t needed = mwsep::cuda::evaluation_plans(w.setup, w.stars.size(), v, {0})[0].plan.needed_bytes();
        {
            const Cap cap(needed - 1);
            const std::size_t before = harness::device_bytes_requested();
            try {
                (void)mwsep::cuda::evaluate(w.setup, w.stars, v, 0);
                ADD_FAILURE() << name << ": a cap of one byte less than needed was accepted";
            } catch (const harness::DeviceMemoryShortage& e) {
                EXPECT_EQ(e.needed(), needed) << e.what();
                EXPECT_EQ(e.free(), needed - 1) << e.what();
                const std::string m = e.what();
                EXPECT_NE(m.find("evaluating with " + std::string(name)), std::string::npos) << m;
                EXPECT_NE(m.find("device 0 ("), std::string::npos) << m;
            }
            EXPECT_EQ(harness::device_bytes_requested(), before) << name << ": something was allocated before the refusal";
        }
        const Cap cap(needed);
        EXPECT_NO_THROW((void)mwsep::cuda::evaluate(w.setup, w.stars, v, 0)) << name;
    }
}

}  // namespace

// The rule by which the server sent the CUDA application only to hosts with double precision (thesis 2.1:
// compute capability 1.3), as the device choice applies it; a rule of the device's version numbers alone, so it
// runs without a GPU.
TEST(DeviceChoice, DoublePrecisionFromComputeCapabilityOneThree) {
    EXPECT_FALSE(mwsep::cuda::supports_double(1, 0));  // G80, the 8800 GTX
    EXPECT_FALSE(mwsep::cuda::supports_double(1, 2));
    EXPECT_TRUE(mwsep::cuda::supports_double(1, 3));   // GT200, the GTX 285
    EXPECT_TRUE(mwsep::cuda::supports_double(2, 0));   // Fermi
    EXPECT_TRUE(mwsep::cuda::supports_double(9, 0));   // Hopper
}
