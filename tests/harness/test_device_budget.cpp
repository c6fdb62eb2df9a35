// The device memory check's arithmetic and message (no GPU needed): allocation rounding, phases, copies,
// saturation, the test hook's sizes, the refusal with its numbers; and the fault-injection hook's counting.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "harness/device_budget.hpp"
#include "harness/fault_injection.hpp"

namespace {

using harness::DevicePlan;

constexpr std::size_t MiB = std::size_t{1} << 20;

/// Sets an environment variable for one test and restores its absence after.
struct ScopedVariable {
    ScopedVariable(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
    ~ScopedVariable() { ::unsetenv(name_); }
    const char* name_;
};

TEST(DeviceBudget, AllocationsAreRoundedToTheAllocatorsGranularity) {
    // Small allocations to 512 bytes, at least one byte; from 1 MiB on to whole 2 MiB pages.
    EXPECT_EQ(harness::rounded_allocation(0), 512u);
    EXPECT_EQ(harness::rounded_allocation(1), 512u);
    EXPECT_EQ(harness::rounded_allocation(512), 512u);
    EXPECT_EQ(harness::rounded_allocation(513), 1024u);
    EXPECT_EQ(harness::rounded_allocation(MiB - 1), MiB);  // 2048 x 512
    EXPECT_EQ(harness::rounded_allocation(MiB), 2 * MiB);
    EXPECT_EQ(harness::rounded_allocation(3 * MiB), 4 * MiB);
    EXPECT_EQ(harness::rounded_allocation(4 * MiB), 4 * MiB);
}

TEST(DeviceBudget, APlanAddsItsItemsAndNeedsItsLargestPhase) {
    DevicePlan plan("the test");
    plan.phase("first")
        .add<double>("a", 1000)                // 8000 bytes, 8192 counted
        .add<float>("empty", 0)                // one float: 4 bytes, 512 counted
        .add("three copies", 300000, 8, 3);    // 2400000 bytes each, 4 MiB counted each
    ASSERT_EQ(plan.phases().size(), 1u);
    EXPECT_EQ(plan.phases()[0].requested(), 8000u + 4u + 3u * 2400000u);
    EXPECT_EQ(plan.phases()[0].rounded(), 8192u + 512u + 3u * 4 * MiB);
    plan.then("second").add<char>("ten MiB", 10 * MiB);  // 10 MiB counted: less than the first phase
    ASSERT_EQ(plan.phases().size(), 2u);
    EXPECT_EQ(plan.peak().name, "first");
    EXPECT_EQ(plan.peak_bytes(), 8192u + 512u + 12 * MiB);
    EXPECT_EQ(plan.requested_bytes(), 8000u + 4u + 7200000u + 10 * MiB);
    EXPECT_EQ(plan.needed_bytes(), 8192u + 512u + 12 * MiB + harness::device_reserve_bytes);
    plan.then("third").add<char>("twenty MiB", 20 * MiB);
    EXPECT_EQ(plan.peak().name, "third");
    EXPECT_EQ(plan.peak_bytes(), 20 * MiB);
}

TEST(DeviceBudget, IncludeTakesTheOtherPlansPeakWithCopiesAndAPrefix) {
    DevicePlan slice;
    slice.add<double>("table", 100).then("later").add<double>("big", 1000);
    DevicePlan plan;
    plan.add<int>("own", 10).include(slice, 3, "slice: ");
    const auto& items = plan.phases().back().items;
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items[1].what, "slice: big");
    EXPECT_EQ(items[1].copies, 3u);
    EXPECT_EQ(items[1].requested, 3u * 8000u);
    EXPECT_EQ(plan.peak_bytes(), 512u + 3u * 8192u);
    plan.include(plan, 2);  // a plan may include itself: its items twice more
    EXPECT_EQ(plan.peak_bytes(), 3 * (512u + 3u * 8192u));
}

TEST(DeviceBudget, SizesSaturateInsteadOfWrapping) {
    const std::size_t most = std::numeric_limits<std::size_t>::max();
    DevicePlan plan;
    plan.add<double>("huge", most / 4);
    EXPECT_EQ(plan.requested_bytes(), most);
    EXPECT_EQ(plan.peak_bytes(), most);
    EXPECT_EQ(plan.needed_bytes(), most);
    plan.add<double>("more", 1, most);
    EXPECT_EQ(plan.peak_bytes(), most);
}

TEST(DeviceBudget, TheTestHooksSizesParse) {
    EXPECT_EQ(harness::parse_byte_size("64MiB"), 64 * MiB);
    EXPECT_EQ(harness::parse_byte_size("64 MiB"), 64 * MiB);
    EXPECT_EQ(harness::parse_byte_size(" 2GiB "), 2048 * MiB);
    EXPECT_EQ(harness::parse_byte_size("1.5GiB"), 1536 * MiB);
    EXPECT_EQ(harness::parse_byte_size("64M"), 64 * MiB);
    EXPECT_EQ(harness::parse_byte_size("500MB"), 500000000u);
    EXPECT_EQ(harness::parse_byte_size("2kB"), 2000u);
    EXPECT_EQ(harness::parse_byte_size("1000000"), 1000000u);
    EXPECT_EQ(harness::parse_byte_size("7B"), 7u);
    EXPECT_EQ(harness::parse_byte_size("0"), 0u);
    for (const char* bad : {"", " ", "abc", "-1", "1e9", "64 mib", "12XB", "1.5", "0.0001kB", "MiB", "1..2MiB",
                            "99999999999999999999999TiB"})
        EXPECT_FALSE(harness::parse_byte_size(bad).has_value()) << bad;
}

TEST(DeviceBudget, TheTestHookIsReadFromTheEnvironment) {
    ::unsetenv(harness::device_memory_limit_variable);
    EXPECT_FALSE(harness::device_memory_limit().has_value());
    {
        const ScopedVariable v(harness::device_memory_limit_variable, "48MiB");
        EXPECT_EQ(harness::device_memory_limit(), 48 * MiB);
    }
    {
        const ScopedVariable v(harness::device_memory_limit_variable, "lots");
        try {
            (void)harness::device_memory_limit();
            FAIL() << "a malformed size was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("GPU_STUDIES_DEVICE_MEMORY_LIMIT='lots'"), std::string::npos) << e.what();
        }
    }
}

TEST(DeviceBudget, BytesAreDescribedInBinaryUnitsWithTheExactCount) {
    EXPECT_EQ(harness::describe_bytes(1000), "1000 bytes");
    EXPECT_EQ(harness::describe_bytes(1536), "1.5 KiB (1536 bytes)");
    EXPECT_EQ(harness::describe_bytes(64 * MiB), "64 MiB (67108864 bytes)");
    EXPECT_EQ(harness::describe_bytes(std::size_t{141} << 30), "141 GiB (151397597184 bytes)");
}

TEST(DeviceBudget, ARefusalNamesNeededFreeTotalTheDeviceTheHookAndTheLargestParts) {
    DevicePlan plan("evaluating the test unit");
    plan.add<double>("per-cell results", 100 * MiB / 8).add<char>("a small table", 1000);
    harness::DeviceMemoryState state;
    state.device = 3;
    state.name = "Test GPU";
    state.free = std::size_t{80} << 30;
    state.total = std::size_t{80} << 30;
    state.limit = 64 * MiB;
    // Needed: 100 MiB of results (whole pages) + 1024 bytes (1000 rounded to 512s) + the 64 MiB reserve.
    const std::size_t needed = 100 * MiB + 1024 + 64 * MiB;
    try {
        harness::check_device_budget(plan, state, "make it smaller");
        FAIL() << "a plan above the capped free memory was accepted";
    } catch (const harness::DeviceMemoryShortage& e) {
        const std::string m = e.what();
        EXPECT_EQ(e.needed(), needed);
        EXPECT_EQ(e.free(), 64 * MiB);
        for (const std::string& part :
             {std::string("evaluating the test unit needs 164 MiB (") + std::to_string(needed) + " bytes) of device memory",
              std::string("but device 3 (Test GPU) has 64 MiB (67108864 bytes) free of 80 GiB (85899345920 bytes)"),
              std::string("capped by the test hook GPU_STUDIES_DEVICE_MEMORY_LIMIT"),
              std::string("the largest parts: per-cell results 100 MiB (104857600 bytes), a small table 1000 bytes"),
              std::string("; make it smaller")})
            EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in: " << m;
    }
    // Without the cap the device's own free memory decides, and the message says what others hold.
    state.limit.reset();
    state.free = 100 * MiB;
    try {
        harness::check_device_budget(plan, state);
        FAIL() << "a plan above the free memory was accepted";
    } catch (const harness::DeviceMemoryShortage& e) {
        EXPECT_NE(std::string(e.what()).find("in use by this and other processes"), std::string::npos) << e.what();
    }
    // Exactly enough is enough; more free memory than the cap leaves the cap deciding.
    state.free = needed;
    EXPECT_NO_THROW(harness::check_device_budget(plan, state));
    state.free = std::size_t{80} << 30;
    state.limit = needed;
    EXPECT_NO_THROW(harness::check_device_budget(plan, state));
    state.limit = needed - 1;
    EXPECT_THROW(harness::check_device_budget(plan, state), harness::DeviceMemoryShortage);
}

TEST(FaultInjection, FailsEveryEvaluationAfterTheAllowedNumber) {
    harness::EvaluationFaults three(3);
    EXPECT_FALSE(three.fail_next());
    EXPECT_FALSE(three.fail_next());
    EXPECT_FALSE(three.fail_next());
    EXPECT_TRUE(three.fail_next());
    EXPECT_TRUE(three.fail_next());
    EXPECT_EQ(three.setting(), "GPU_STUDIES_FAIL_AFTER_EVALUATIONS=3");
    harness::EvaluationFaults zero(0);
    EXPECT_TRUE(zero.fail_next());
    harness::EvaluationFaults off(std::nullopt);
    for (int i = 0; i < 1000; ++i) ASSERT_FALSE(off.fail_next());
}

TEST(FaultInjection, CountsExactlyAcrossThreads) {
    harness::EvaluationFaults faults(500);
    std::vector<int> passed(8, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 1000; ++i) passed[t] += faults.fail_next() ? 0 : 1;
        });
    for (auto& t : threads) t.join();
    int total = 0;
    for (int p : passed) total += p;
    EXPECT_EQ(total, 500);
}

TEST(FaultInjection, TheSettingIsReadFromTheEnvironment) {
    ::unsetenv(harness::fail_after_evaluations_variable);
    EXPECT_FALSE(harness::fail_after_evaluations_setting().has_value());
    {
        const ScopedVariable v(harness::fail_after_evaluations_variable, "17");
        EXPECT_EQ(harness::fail_after_evaluations_setting(), 17);
    }
    for (const char* bad : {"-1", "x", "1.5", "3 ", "99999999999999999"}) {
        const ScopedVariable v(harness::fail_after_evaluations_variable, bad);
        EXPECT_THROW((void)harness::fail_after_evaluations_setting(), std::invalid_argument) << bad;
    }
}

}  // namespace
