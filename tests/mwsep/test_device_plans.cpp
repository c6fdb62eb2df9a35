// The device memory plans of mwsep's GPU work (no GPU needed: the plans are computed from the sizes alone),
// against sizes worked out by hand for the tiny work unit: mu 40 x nu 8 = 320 cells (already a multiple of
// 64), r 20 steps x convolve 120 = 2400 points per line of sight, 2 streams (3 components), no cuts. What
// each family's code allocates is listed in the comments; the GPU tests compare the plans with what the
// code really allocates (test_gpu_memory.cpp).
#include <gtest/gtest.h>

#include <string>

#include "harness/device_budget.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/variants.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "test_support.hpp"
#if defined(MWSEP_WITH_FIT)
#include "mwsep/fit/resident_device.hpp"
#endif

namespace {

using mwsep::cuda::find_variant;

const mwsep::geometry::IntegrationSetup& tiny() {
    static const auto setup = mwsep::geometry::make_setup(mwsep::model::build_model(
        mwsep::model::read_astronomy_parameters(testsupport::workunit("tiny").string()), mwsep::model::RBinning::magnitude));
    return setup;
}

/// The bytes a family's plan requests for the tiny unit on one device with @p slices slices.
std::size_t integral_bytes(const std::string& variant, int slices = 1, std::size_t streams = 2) {
    harness::DevicePlan plan;
    find_variant(variant).family->plan_device_memory(tiny(), streams, slices, plan);
    return plan.requested_bytes();
}

TEST(DevicePlans, TheTinyUnitHasTheSizesTheHandWorkedPlansAssume) {
    const auto& s = tiny();
    ASSERT_EQ(s.areas.size(), 1u);
    ASSERT_EQ(s.streams.size(), 2u);
    EXPECT_EQ(s.areas[0].cells(), 320u);
    EXPECT_EQ(s.areas[0].r.n_r, 20);
    EXPECT_EQ(s.areas[0].r.n_conv, 120);
    EXPECT_EQ(s.areas[0].n_nu(), 8);
}

TEST(DevicePlans, ModernDoublePrecisionOnTheTinyUnit) {
    // The exponential's tables: 2 x 256 entries of 16 bytes, 1024 doubles          = 4096 + 4096 + 8192 = 16384
    // Cell directions: 4 x 320 doubles                                                                 = 10240
    // Line of sight: 2400 points and 2400 weights                                                      = 38400
    // nu areas: 8 doubles                                                                              = 64
    // Per-cell results: 320 cells x 3 components x 1 r piece (20 r bins: n_r / 32 < 1)                 = 7680
    // Chunk sums: 1024 chunks x 2 x 3 components                                                       = 49152
    // r-bin weight, smallest and largest distance: 3 x 20 doubles                                      = 480
    // The lean variants' interleaved points (2400 double2) and 4 x 20 bins x 4 groups of sums/ranges   = 38400 + 2560
    EXPECT_EQ(integral_bytes("modern-f64"), 16384u + 10240 + 38400 + 64 + 7680 + 49152 + 480 + 38400 + 2560);
    // Two slices on one device: everything twice.
    EXPECT_EQ(integral_bytes("modern-f64", 2), 2 * integral_bytes("modern-f64"));
    // One stream fewer (a fit's partial integral): 2 components instead of 3 in the results and chunk sums.
    EXPECT_EQ(integral_bytes("modern-f64", 1, 1), 16384u + 10240 + 38400 + 64 + 5120 + 32768 + 480 + 38400 + 2560);
}

TEST(DevicePlans, ModernSinglePrecisionOnTheTinyUnit) {
    // The tables of the exponential and the chunk sums stay double; the rest in floats; no lean tables.
    // 16384 + 4 x 320 x 4 + 2 x 2400 x 4 + 8 x 4 + 320 x 3 x 4 + 49152 + 480
    EXPECT_EQ(integral_bytes("modern-f32"), 16384u + 5120 + 19200 + 32 + 3840 + 49152 + 480);
}

TEST(DevicePlans, ThesisFamilyOnTheTinyUnit) {
    // The stream table: 6 values x 4 streams in double and in float                                   = 192 + 96
    // Cell directions 4 x 320; convolution distances and weights 2 x 2400; volume factors 20 x 8;
    // accumulators 320 (background) + 320 x 2 (streams).
    EXPECT_EQ(integral_bytes("shared-fast-unrolled-f64"), 288u + (1280 + 4800 + 160 + 320 + 640) * 8);
    // Single precision adds the Kahan compensations: the accumulators twice.
    EXPECT_EQ(integral_bytes("shared-fast-unrolled-f32"), 288u + (1280 + 4800 + 160 + 2 * (320 + 640)) * 4);
}

TEST(DevicePlans, StarTablesAndPerStarResults) {
    // 400 stars: the table pads to 448 (a multiple of 64), 5 values each; 400 results; 400 x 3 densities; the
    // device star sum's parts, one per block of 64 stars (7) and the total, 40 bytes each (5 eight-byte fields).
    harness::DevicePlan f64, f32, none;
    mwsep::cuda::plan_star_memory(400, true, 2, f64);
    mwsep::cuda::plan_star_memory(400, false, 2, f32);
    mwsep::cuda::plan_star_memory(0, true, 2, none);
    EXPECT_EQ(f64.requested_bytes(), (448u * 5 + 400 + 1200) * 8 + 8 * 40);
    EXPECT_EQ(f32.requested_bytes(), (448u * 5 + 400 + 1200) * 4 + 8 * 40);
    EXPECT_EQ(none.requested_bytes(), 3u * 8 + 40);  // every allocation holds at least one value; the total's part
}

TEST(DevicePlans, AnEvaluationNeedsTheLargerOfItsIntegralAndItsStars) {
    // evaluate() frees the integral's buffers before it allocates the stars: two phases on the first device.
    const auto plans = mwsep::cuda::evaluation_plans(tiny(), 400, find_variant("modern-f64"), {0});
    ASSERT_EQ(plans.size(), 1u);
    const auto& phases = plans[0].plan.phases();
    ASSERT_EQ(phases.size(), 2u);
    EXPECT_EQ(phases[0].requested(), integral_bytes("modern-f64"));
    EXPECT_EQ(phases[1].requested(), (448u * 5 + 400 + 1200) * 8 + 8 * 40);
    EXPECT_EQ(plans[0].plan.peak().name, "the integral runs");
    // The modern family deals slices round-robin: 3 slices over 2 devices put 2 on the first, 1 on the second,
    // and only the first device holds the stars.
    mwsep::cuda::LaunchOptions three;
    three.slices = 3;
    const auto spread = mwsep::cuda::evaluation_plans(tiny(), 400, find_variant("modern-f64"), {0, 1}, three);
    ASSERT_EQ(spread.size(), 2u);
    EXPECT_EQ(spread[0].device, 0);
    EXPECT_EQ(spread[0].plan.phases()[0].requested(), 2 * integral_bytes("modern-f64"));
    EXPECT_EQ(spread[1].device, 1);
    ASSERT_EQ(spread[1].plan.phases().size(), 1u);
    EXPECT_EQ(spread[1].plan.phases()[0].requested(), integral_bytes("modern-f64"));
    // A family on one device ignores the others.
    const auto thesis = mwsep::cuda::evaluation_plans(tiny(), 400, find_variant("shared-fast-unrolled-f64"), {0, 1});
    ASSERT_EQ(thesis.size(), 1u);
}

#if defined(MWSEP_WITH_FIT)
TEST(DevicePlans, AFitKeepsTheIntegralItsPartialIntegralsAndTheStars) {
    // Everything at once for the whole fit: the full integral, the integral cache's 1-stream integral (the tiny
    // unit has 2 streams), the stars; without the cache, no partial integral.
    const std::size_t stars = (448u * 5 + 400 + 1200) * 8 + 8 * 40;
    const auto with = mwsep::fit::ResidentDevice::plan(tiny(), 400, "modern-f64", true, false);
    const auto without = mwsep::fit::ResidentDevice::plan(tiny(), 400, "modern-f64", false, false);
    ASSERT_EQ(with.phases().size(), 1u);
    EXPECT_EQ(without.requested_bytes(), integral_bytes("modern-f64") + stars);
    EXPECT_EQ(with.requested_bytes(), integral_bytes("modern-f64") + integral_bytes("modern-f64", 1, 1) + stars);
    // With the device star sum, the stars' convolution table too: a distance and a weight for each of the 120
    // points of each of the 448 (400 padded to a multiple of 64) stars.
    ASSERT_EQ(tiny().model.convolve, 120);
    const auto summed = mwsep::fit::ResidentDevice::plan(tiny(), 400, "modern-f64", false, true);
    EXPECT_EQ(summed.requested_bytes(), without.requested_bytes() + 2 * 448 * 120 * 8);
    // The population or batch size enters nowhere: the plan has no such input.
}
#endif

}  // namespace
