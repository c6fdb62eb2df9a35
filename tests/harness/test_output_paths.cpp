// The shared checks every command of every program makes before any work: an output is never an input or
// another output (whatever the spelling or link), CSV rows of two writers are all kept, `<command> --help`
// is answered by every command, and a thread that cannot start never aborts a loop.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/csv.hpp"
#include "harness/options.hpp"
#include "harness/output_paths.hpp"
#include "harness/subcommands.hpp"
#include "harness/threads.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
    const auto dir = fs::temp_directory_path() / ("harness-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string refusal(const std::vector<harness::NamedPath>& inputs, const std::vector<harness::NamedPath>& outputs) {
    try {
        harness::check_outputs("prog cmd", inputs, outputs);
    } catch (const harness::OptionError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(OutputPaths, AnOutputThatIsAnInputByAnyNameIsRefused) {
    const auto dir = fresh_dir("outputs");
    const std::string in = (dir / "in.txt").string();
    std::ofstream(in) << "data\n";
    fs::create_symlink(in, dir / "link.txt");
    fs::create_hard_link(in, dir / "hard.txt");
    fs::create_directories(dir / "sub");
    const std::vector<harness::NamedPath> inputs = {{"-a", in}, {"--unused", ""}};
    for (const std::string& alias : {in, (dir / "." / "in.txt").string(), (dir / "sub" / ".." / "in.txt").string(),
                                     (dir / "link.txt").string(), (dir / "hard.txt").string()}) {
        const std::string why = refusal(inputs, {{"-o", alias}});
        EXPECT_NE(why.find("prog cmd: -o: '" + alias + "' is the same file as the input '" + in + "' (-a)"),
                  std::string::npos)
            << why;
    }
    // The same spelling relative to the working folder.
    const auto cwd = fs::current_path();
    fs::current_path(dir);
    EXPECT_NE(refusal({{"-s", "in.txt"}}, {{"--csv", "./in.txt"}}).find("the same file as the input 'in.txt' (-s)"),
              std::string::npos);
    // Two outputs on one file, existing or not yet.
    EXPECT_NE(refusal({}, {{"-o", "new.txt"}, {"--report", "./new.txt"}}).find("--report: './new.txt' is the same file as the output of -o"),
              std::string::npos);
    EXPECT_NE(refusal({}, {{"-o", "sub/../x.txt"}, {"--report", (dir / "x.txt").string()}}).find("the output of -o"),
              std::string::npos);
    fs::current_path(cwd);
    // Another file, and the writability checks, named with the option.
    EXPECT_EQ(refusal(inputs, {{"-o", (dir / "out.txt").string()}, {"--report", (dir / "report.json").string()}}), "accepted");
    EXPECT_NE(refusal({}, {{"--csv", dir.string()}}).find("prog cmd: --csv: cannot write"), std::string::npos);
    EXPECT_NE(refusal({}, {{"--csv", "/dev/full"}}).find("it is not a regular file"), std::string::npos);
    EXPECT_NE(refusal({}, {{"--csv", ""}}).find("--csv: '' is empty"), std::string::npos);
    EXPECT_EQ(fs::file_size(in), 5u);
    fs::remove_all(dir);
}

// Two processes appending to one CSV at once keep every row of both, each row whole.
TEST(BenchCsv, TwoProcessesAppendingToOneFileKeepEveryRow) {
    const auto dir = fresh_dir("csv-two");
    const std::string path = (dir / "t.csv").string();
    constexpr int rows = 60;
    std::vector<pid_t> children;
    for (int p = 0; p < 2; ++p) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            int code = 0;
            try {
                harness::CsvAppender csv(path, {"writer", "row"});
                for (int r = 0; r < rows; ++r) csv.row({std::to_string(p), std::to_string(r)});
            } catch (...) {
                code = 1;
            }
            ::_exit(code);
        }
        children.push_back(child);
    }
    for (const pid_t c : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(c, &status, 0), c);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "writer,row");
    std::vector<int> next(2, 0);
    int count = 0;
    while (std::getline(in, line)) {
        const int writer = line[0] - '0';
        ASSERT_TRUE(writer == 0 || writer == 1) << line;
        EXPECT_EQ(line, std::to_string(writer) + "," + std::to_string(next[writer]++));  // each writer's rows in order
        ++count;
    }
    EXPECT_EQ(count, 2 * rows);
    fs::remove_all(dir);
}

// A writer refused before its first row leaves no file behind (not even a header).
TEST(BenchCsv, NothingIsWrittenBeforeTheFirstRow) {
    const auto dir = fresh_dir("csv-none");
    const std::string path = (dir / "none.csv").string();
    { harness::CsvAppender csv(path, {"a"}); }
    EXPECT_FALSE(fs::exists(path));
    fs::remove_all(dir);
}

// `<command> --help` works for a command that declares no help of its own: its options, exit 0.
TEST(Subcommands, EveryCommandAnswersHelp) {
    const std::vector<harness::Subcommand> commands = {
        {"plain", [](const std::vector<std::string>& args) {
             const harness::Options o(args, {{"--n"}, {"--quiet", harness::OptionKind::flag}}, "prog plain");
             return o.has("--quiet") ? 3 : 4;
         }}};
    for (const char* help : {"--help", "-h"}) {
        std::vector<std::string> text = {"prog", "plain", "--n", "5", help};
        std::vector<char*> argv;
        for (auto& a : text) argv.push_back(a.data());
        testing::internal::CaptureStdout();
        const int code = harness::run_subcommand("prog", "usage\n", commands, static_cast<int>(argv.size()), argv.data());
        const std::string out = testing::internal::GetCapturedStdout();
        EXPECT_EQ(code, 0);
        EXPECT_EQ(out.substr(0, out.find("  -h, --help")), "usage: prog plain [options]\n\noptions:\n  --n VALUE\n  --quiet\n");
        EXPECT_NE(out.find("\nexit status: 0 done;"), std::string::npos) << out;
    }
}

// A thread that the system refuses to start leaves the work to those that started: every index still runs
// once, a warning names the counts, and nothing aborts.
TEST(Threads, AThreadThatCannotStartLeavesTheWorkToTheOthers) {
    harness::detail::thread_starts_left = 2;
    std::vector<std::atomic<int>> hits(1000);
    testing::internal::CaptureStderr();
    const int used = harness::parallel_for(hits.size(), 16, [&](std::size_t i) { ++hits[i]; }, "prog");
    const std::string err = testing::internal::GetCapturedStderr();
    harness::detail::thread_starts_left = -1;
    EXPECT_EQ(used, 3);
    for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
    EXPECT_NE(err.find("prog: warning: could start only 3 of 16 threads"), std::string::npos) << err;
    // An exception in a body reaches the caller after every thread has stopped.
    EXPECT_THROW(harness::parallel_for(100, 4, [](std::size_t i) { if (i == 50) throw std::runtime_error("x"); }),
                 std::runtime_error);
}

}  // namespace
