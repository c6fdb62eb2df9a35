// The programs' shared entry point: which command runs with which arguments, and the exit code and message
// of every other case, written out by hand.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/options.hpp"
#include "harness/progress.hpp"
#include "harness/subcommands.hpp"
#include "harness/version.hpp"

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
    EXPECT_EQ(unknown.err, "prog: error: unknown command 'frobnicate' (see 'prog --help')\n");
    const Outcome option = call({"prog", "--frobnicate"});
    EXPECT_EQ(option.code, 2);
    EXPECT_EQ(option.err, "prog: error: unknown option '--frobnicate' (see 'prog --help')\n");
    // A failure of the work: the command named once, before "error:"; exit status 3.
    const Outcome boom = call({"prog", "boom"});
    EXPECT_EQ(boom.code, 3);
    EXPECT_EQ(boom.err, "prog boom: error: it broke\n");
    const Outcome gpu = call({"prog", "gpu", "--x"});
    EXPECT_EQ(gpu.code, 3);
    EXPECT_EQ(gpu.err, "prog gpu: error: needs the CUDA build\n");
    EXPECT_EQ(gpu.out, "");
}

// A usage error is exit status 2, a failed run 3, a command's own status (1: a check failed) passes through;
// a message that names the command already does not name it twice.
TEST(Subcommands, UsageErrorsAndFailuresHaveTheirOwnStatusAndOnePrefix) {
    const std::vector<harness::Subcommand> commands = {
        {"opts", [](const std::vector<std::string>& args) {
             const harness::Options o(args, {harness::option::value("--n", "N", "a count", "1")}, "prog opts");
             return static_cast<int>(o.integer("--n", 1, 0, 9));
         }},
        {"prefixed", [](const std::vector<std::string>&) -> int { throw std::runtime_error("prog prefixed: it broke"); }},
        {"late", [](const std::vector<std::string>&) -> int { throw harness::TimeLimitReached("stopped at --time-limit 1 s"); }}};
    const auto run = [&](std::vector<std::string> argv_text) {
        std::vector<char*> argv;
        for (auto& a : argv_text) argv.push_back(a.data());
        testing::internal::CaptureStdout();
        testing::internal::CaptureStderr();
        const int code = harness::run_subcommand(harness::Program{"prog", "", commands}, static_cast<int>(argv.size()),
                                                 argv.data());
        const std::string out = testing::internal::GetCapturedStdout();
        return Outcome{code, out, testing::internal::GetCapturedStderr()};
    };
    EXPECT_EQ(run({"prog", "opts", "--n", "1"}).code, 1) << "the command's own status";
    const Outcome bad = run({"prog", "opts", "--n", "x"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_EQ(bad.err, "prog opts: error: --n expects an integer, found 'x'\n");
    const Outcome unknown = run({"prog", "opts", "--m"});
    EXPECT_EQ(unknown.code, 2);
    EXPECT_EQ(unknown.err, "prog opts: error: unknown option '--m' (see --help)\n");
    EXPECT_EQ(run({"prog", "prefixed"}).err, "prog prefixed: error: it broke\n");
    const Outcome late = run({"prog", "late"});
    EXPECT_EQ(late.code, 3);
    EXPECT_EQ(late.err, "prog late: error: stopped at --time-limit 1 s\n");
    const Outcome help = run({"prog", "opts", "--n", "x", "--help"});
    EXPECT_EQ(help.code, 0) << "--help wins over a bad value";
    EXPECT_NE(help.out.find("usage: prog opts [options]"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("  --n N                       a count (default: 1)"), std::string::npos) << help.out;
    const Outcome version = run({"prog", "--version"});
    EXPECT_EQ(version.code, 0);
    EXPECT_EQ(version.out.find("prog (gpu_studies "), 0u) << version.out;
    EXPECT_NE(version.out.find("\ncommit " + harness::build_commit() + "\n"), std::string::npos) << version.out;
    const std::string listing = run({"prog", "--help"}).out;
    EXPECT_NE(listing.find("\ncommands:\n  opts      \n"), std::string::npos) << listing;
    EXPECT_NE(listing.find("exit status: 0 done; 1 a check failed"), std::string::npos) << listing;
}

}  // namespace
