// The program refuses bad options before any work, with a message naming the command and the option.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "test_support.hpp"

namespace {

using Outcome = testsupport::CommandOutcome;

Outcome run(const std::string& arguments) { return testsupport::shell(std::string(KIRK_HWU_BINARY) + " " + arguments); }

/// Expects a usage error (exit status 2, docs/cli.md) whose message contains @p message.
void expect_refused(const std::string& arguments, const std::string& message) {
    const Outcome o = run(arguments);
    EXPECT_EQ(o.status, 2) << arguments << "\n" << o.output;
    EXPECT_NE(o.output.find(message), std::string::npos) << arguments << "\nprinted: " << o.output;
}

}  // namespace

TEST(KirkHwuCommandLine, BadOptionsAreRefusedWithTheirName) {
    expect_refused("cpu --size huge", "--size");
    expect_refused("cpu --problem fft", "--problem");
    expect_refused("cpu --min-samples 0", "--min-samples must be between 1 and");
    expect_refused("cpu --repeats 2", "kirk_hwu cpu: error: --repeats is an old spelling: write --min-samples N");
    expect_refused("cpu --cold", "unknown option '--cold'");
    expect_refused("cpu --colour red", "--colour");
    expect_refused("frobnicate", "unknown command");
}

TEST(KirkHwuCommandLine, TheCpuCommandWritesOneRowPerSample) {
    const std::string csv = testing::TempDir() + "kirk_hwu_cpu.csv";
    std::remove(csv.c_str());
    const Outcome o = run("cpu --problem coulomb --precision f32 --size tiny --min-samples 2 --max-samples 2 --threads 2 --csv " + csv);
    ASSERT_EQ(o.status, 0) << o.output;
    FILE* f = std::fopen(csv.c_str(), "r");
    ASSERT_NE(f, nullptr);
    int lines = 0;
    for (int c; (c = std::fgetc(f)) != EOF;) lines += c == '\n';
    std::fclose(f);
    EXPECT_EQ(lines, 3);  // header and two rows
}
