// The program refuses bad options before any work, with a message naming the command and the option.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "test_support.hpp"

namespace {

using Outcome = testsupport::CommandOutcome;

Outcome run(const std::string& arguments) { return testsupport::shell(std::string(KIRK_HWU_BINARY) + " " + arguments); }

void expect_refused(const std::string& arguments, const std::string& message) {
    const Outcome o = run(arguments);
    EXPECT_NE(o.status, 0) << arguments;
    EXPECT_NE(o.output.find(message), std::string::npos) << arguments << "\nprinted: " << o.output;
}

}  // namespace

TEST(KirkHwuCommandLine, BadOptionsAreRefusedWithTheirName) {
    expect_refused("cpu --size huge", "--size");
    expect_refused("cpu --problem fft", "--problem");
    expect_refused("cpu --repeats 0", "--repeats");
    expect_refused("cpu --colour red", "--colour");
    expect_refused("frobnicate", "unknown command");
}

TEST(KirkHwuCommandLine, TheCpuCommandWritesOneRowPerRepeat) {
    const std::string csv = testing::TempDir() + "kirk_hwu_cpu.csv";
    std::remove(csv.c_str());
    const Outcome o = run("cpu --problem coulomb --precision f32 --size tiny --repeats 2 --threads 2 --csv " + csv);
    ASSERT_EQ(o.status, 0) << o.output;
    FILE* f = std::fopen(csv.c_str(), "r");
    ASSERT_NE(f, nullptr);
    int lines = 0;
    for (int c; (c = std::fgetc(f)) != EOF;) lines += c == '\n';
    std::fclose(f);
    EXPECT_EQ(lines, 3);  // header and two rows
}
