// The programs' shared entry point: which command runs with which arguments, and the exit code and message
// of every other case, written out by hand.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/subcommands.hpp"

namespace {

const char* usage = "usage: prog <command>\n";

struct Outcome {
    int code;
    std::string out, err;
};

Outcome call(std::vector<std::string> argv_text, std::vector<std::string>* seen = nullptr) {
    const std::vector<harness::Subcommand> commands = {
        {"echo", [seen](const std::vector<std::string>& args) {
             if (seen) *seen = args;
             return 7;
         }},
        {"boom", [](const std::vector<std::string>&) -> int { throw std::runtime_error("it broke"); }},
        {"gpu", {}, "needs the CUDA build"}};
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int code = harness::run_subcommand("prog", usage, commands, static_cast<int>(argv.size()), argv.data());
    const std::string out = testing::internal::GetCapturedStdout();
    return {code, out, testing::internal::GetCapturedStderr()};
}

TEST(Subcommands, TheNamedCommandRunsWithTheRestOfTheArgumentsAndItsExitCode) {
    std::vector<std::string> seen;
    const Outcome o = call({"prog", "echo", "-a", "x y"}, &seen);
    EXPECT_EQ(o.code, 7);
    EXPECT_EQ(seen, (std::vector<std::string>{"-a", "x y"}));
    EXPECT_EQ(o.out, "");
    EXPECT_EQ(o.err, "");
}

TEST(Subcommands, HelpMissingUnknownThrowingAndUnavailableCommands) {
    for (const char* help : {"help", "-h", "--help"}) {
        const Outcome o = call({"prog", help});
        EXPECT_EQ(o.code, 0) << help;
        EXPECT_EQ(o.out, usage) << help;
        EXPECT_EQ(o.err, "") << help;
    }
    const Outcome none = call({"prog"});
    EXPECT_EQ(none.code, 2);
    EXPECT_EQ(none.err, usage);
    const Outcome unknown = call({"prog", "frobnicate"});
    EXPECT_EQ(unknown.code, 2);
    EXPECT_EQ(unknown.err, std::string("prog: unknown command 'frobnicate'\n") + usage);
    const Outcome boom = call({"prog", "boom"});
    EXPECT_EQ(boom.code, 1);
    EXPECT_EQ(boom.err, "prog: error: it broke\n");
    const Outcome gpu = call({"prog", "gpu", "--x"});
    EXPECT_EQ(gpu.code, 2);
    EXPECT_EQ(gpu.err, "prog: 'gpu' needs the CUDA build\n");
    EXPECT_EQ(gpu.out, "");
}

}  // namespace
