// Every command refuses an unknown option and a malformed number before it reads a file or touches a GPU,
// with a message that names the command, the option and the text, and a non-zero exit status.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

using Outcome = testsupport::CommandOutcome;
using testsupport::shell;

/// Runs the built mwsep with @p arguments (shell words) and collects what it printed.
Outcome mwsep(const std::string& arguments) { return shell(std::string(MWSEP_BINARY) + " " + arguments); }

/// The options every input-reading command needs; the files need not exist, since parsing comes first.
const std::string inputs = "-a no-such-unit.txt -s no-such-stars.txt";

/// Expects @p arguments to stop with @p status (2: a usage error, 3: the work could not be done; docs/cli.md)
/// and a message containing @p message.
void expect_refused(const std::string& arguments, const std::string& message, int status = 2) {
    const Outcome o = mwsep(arguments);
    EXPECT_EQ(o.status, status) << arguments << "\n" << o.output;
    EXPECT_NE(o.output.find(message), std::string::npos) << arguments << "\nprinted: " << o.output;
    EXPECT_EQ(o.output.find("stoi"), std::string::npos) << o.output;
}

/// Commands that exist only with the CUDA backend say so in a build without it.
bool cuda_built() {
#if defined(MWSEP_WITH_CUDA)
    return true;
#else
    return false;
#endif
}

TEST(CommandLine, RunRefusesUnknownOptionsAndMalformedNumbers) {
    expect_refused("run " + inputs + " --bogus", "mwsep run: error: unknown option '--bogus'");
    expect_refused("run " + inputs + " --threads abc", "mwsep run: error: --threads expects an integer, found 'abc'");
    expect_refused("run " + inputs + " --threads -2", "mwsep run: error: --threads must be at least 0, found '-2'");
    expect_refused("run " + inputs + " --cpu fastx", "mwsep run: error: --cpu must be one of reference, fast, extended, compressed, found 'fastx'");
}

// Options that would be ignored or overridden without a word are refused (probe finding F12): a second -a,
// a GPU option on the CPU backend and a CPU option on the GPU backend.
TEST(CommandLine, RunRefusesRepeatedAndInapplicableOptions) {
    expect_refused("run " + inputs + " -a other.txt", "mwsep run: error: -a is given twice");
    expect_refused("run " + inputs + " --variant modern-f64", "mwsep run: error: --variant applies to --backend cuda only");
    expect_refused("run " + inputs + " --device 0", "mwsep run: error: --device applies to --backend cuda only");
    expect_refused("run " + inputs + " --backend cuda --threads 2", "mwsep run: error: --threads applies to --backend cpu only");
}

TEST(CommandLine, GenerateRefusesUnknownOptionsAndMalformedNumbers) {
    expect_refused("generate -a x.txt -o y.txt --bogus 1", "mwsep generate: error: unknown option '--bogus'");
    expect_refused("generate -a x.txt -o y.txt --count 1e3", "mwsep generate: error: --count expects an integer, found '1e3'");
    expect_refused("generate -a x.txt -o y.txt --count 0", "mwsep generate: error: --count must be at least 1, found '0'");
}

// --envelope is three plain positive sizes: no sign, no overflow, nothing after them, within the limits.
TEST(CommandLine, GenerateParsesTheEnvelopeStrictly) {
    const std::string base = "generate -a x.txt -o y.txt --envelope ";
    for (const char* bad : {"99999999999x1x1", "2147483647x1x1", "4294967297x1x1", "-1x16x70", "+5x16x70", "160x16x70x",
                            "160x16x70junk", "160x16", "160xx70", "x16x70", "0x16x70", "100001x1x1", "100000x100000x1",
                            " 160x16x70"})
        expect_refused(base + "'" + bad + "'", "mwsep generate: error: --envelope must look like 160x16x70");
}

// generate -o onto one of its inputs would destroy it: refused before any work, the input left intact.
TEST(CommandLine, GenerateRefusesToWriteOverItsInput) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("mwsep-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path unit = dir / "unit.txt";
    fs::copy_file(testsupport::workunit("tiny"), unit, fs::copy_options::overwrite_existing);
    const std::string before = testsupport::read_text(unit);
    expect_refused("generate --count 5 -a " + unit.string() + " -o " + unit.string(), "is the same file as the input");
    // The same file by another path, and through a link.
    expect_refused("generate --count 5 -a " + unit.string() + " -o " + (dir / "." / "unit.txt").string(),
                   "is the same file as the input");
    fs::create_symlink(unit, dir / "link.txt");
    expect_refused("generate --count 5 -a " + unit.string() + " -o " + (dir / "link.txt").string(),
                   "is the same file as the input");
    expect_refused("generate --count 5 -a " + unit.string() + " --search-parameters " + (dir / "s.txt").string() +
                       " -o " + (dir / "s.txt").string(),
                   "is the same file as the input");
    EXPECT_EQ(testsupport::read_text(unit), before);
    fs::remove_all(dir);
}

// A directory or a device given as an input is named as such, before anything is read from it.
TEST(CommandLine, DirectoriesAndDevicesAreNotReadAsInputs) {
    const std::string tiny = testsupport::workunit("tiny").string();
    expect_refused("run -a /tmp -s no-such-stars.txt", "/tmp: is a directory", 3);
    expect_refused("run -a /dev/null -s no-such-stars.txt", "/dev/null: is not a regular file", 3);
    expect_refused("run -a " + tiny + " -s /tmp", "/tmp: is a directory", 3);
    expect_refused("run -a " + tiny + " -s /dev/null", "/dev/null: is not a regular file", 3);
    expect_refused("run -a " + tiny + " --search-parameters /tmp -s no-such-stars.txt", "/tmp: is a directory", 3);
}

// Offending text is quoted up to 80 characters, then cut with an ellipsis: a huge value gives a short message.
TEST(CommandLine, LongOffendingTextIsCutInMessages) {
    const std::string junk(5000, '7');
    const Outcome o = mwsep("run " + inputs + " --threads 1" + junk + "x");
    EXPECT_EQ(o.status, 2) << o.output;
    EXPECT_NE(o.output.find("--threads expects an integer, found '1" + junk.substr(0, 79) + "...'"), std::string::npos)
        << o.output.substr(0, 300);
    EXPECT_LT(o.output.size(), 300u) << o.output.substr(0, 300);
}

// A star file whose count claims two billion stars is refused by the count check, not by an allocation
// of tens of GB made up front (the program runs here with 4 GB of address space).
TEST(CommandLine, AHugeDeclaredStarCountIsNotReservedUpFront) {
    namespace fs = std::filesystem;
    const fs::path stars = fs::temp_directory_path() / ("mwsep-cli-stars-" + std::to_string(::getpid()) + ".txt");
    {
        std::FILE* f = std::fopen(stars.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("2000000000\n16.5 75.4 10.0\n", f);
        std::fclose(f);
    }
    const Outcome o = shell("ulimit -v 4000000; " + std::string(MWSEP_BINARY) + " run --threads 1 -a " +
                            testsupport::workunit("tiny").string() + " -s " + stars.string());
    fs::remove(stars);
    EXPECT_EQ(o.status, 3) << o.output;
    EXPECT_NE(o.output.find("declares 2000000000 stars but the file has 1"), std::string::npos) << o.output;
}

/// A fresh scratch folder for one test, removed by the caller.
std::filesystem::path scratch(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("mwsep-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

/// Writes @p text to @p path.
void write_text(const std::filesystem::path& path, const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << path;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
}

/// The tiny work unit with every line that starts with @p key replaced by @p line.
std::string tiny_with(const std::string& key, const std::string& line) {
    std::string text = testsupport::read_text(testsupport::workunit("tiny"));
    const auto at = text.find(key);
    if (at == std::string::npos) return text;
    return text.replace(at, text.find('\n', at) - at, line);
}

/// Names of the files in @p dir.
std::vector<std::string> listing(const std::filesystem::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// An output path that cannot be written is refused before the generation, not after it.
TEST(CommandLine, GenerateChecksItsOutputPathFirst) {
    const std::string tiny = testsupport::workunit("tiny").string();
    for (const auto& [path, message] : std::vector<std::pair<std::string, std::string>>{
             {"/nonexistent-dir/x.txt", "the directory /nonexistent-dir does not exist"},
             {"/tmp", "it is a directory"},
             {"/dev/full", "it is not a regular file"}}) {
        const auto t0 = std::chrono::steady_clock::now();
        // 300000 stars take seconds to generate: a refusal well under a second comes before the work.
        expect_refused("generate --count 300000 -a " + tiny + " -o " + path, message);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5) << path;
    }
}

// A catalogue is replaced as a whole: when the write fails half-way (here: a file-size limit of 16 KiB),
// the previous file is still there, unchanged, and no temporary is left beside it.
TEST(CommandLine, GenerateKeepsThePreviousCatalogueWhenTheWriteFails) {
    const auto dir = scratch("atomic");
    const auto out = dir / "stars.txt";
    const std::string tiny = testsupport::workunit("tiny").string();
    const std::string generate = std::string(MWSEP_BINARY) + " generate --threads 1 -a " + tiny + " -o " + out.string();
    const Outcome first = shell(generate + " --count 5");
    ASSERT_EQ(first.status, 0) << first.output;
    const std::string before = testsupport::read_text(out);
    // With SIGXFSZ ignored, a write beyond `ulimit -f` fails with EFBIG instead of killing the process.
    const Outcome o = shell("trap '' XFSZ; ulimit -f 16; " + generate + " --count 20000");
    EXPECT_EQ(o.status, 3) << o.output;
    EXPECT_NE(o.output.find("cannot write " + out.string()), std::string::npos) << o.output;
    EXPECT_EQ(testsupport::read_text(out), before);
    EXPECT_EQ(listing(dir), std::vector<std::string>{"stars.txt"});
    // A process killed during the write (SIGXFSZ's default action) leaves the previous file too.
    const Outcome killed = shell("ulimit -f 16; " + generate + " --count 20000");
    EXPECT_NE(killed.status, 0) << killed.output;
    EXPECT_EQ(testsupport::read_text(out), before);
    std::filesystem::remove_all(dir);
}

// A line longer than the readers' bound (1 MiB) is refused with the file and the line, and the message
// quotes only its start; without the bound a file without line breaks is read until memory runs out.
TEST(CommandLine, OverlongLinesAreRefusedWithFileAndLine) {
    const auto dir = scratch("long-line");
    const std::string junk(2u << 20, '7');
    write_text(dir / "unit.txt", "number_parameters: " + junk + "\n");
    write_text(dir / "stars.txt", "1\n16.5 75.4 " + junk + "\n");
    write_text(dir / "search.txt", "optimization parameters\n" + junk);
    const std::string tiny = testsupport::workunit("tiny").string();
    for (const auto& [arguments, where] : std::vector<std::pair<std::string, std::string>>{
             {"run -a " + (dir / "unit.txt").string() + " -s x", (dir / "unit.txt").string() + ":1: line longer than 1048576 bytes"},
             {"run -a " + tiny + " -s " + (dir / "stars.txt").string(), (dir / "stars.txt").string() + ":2: line longer than 1048576 bytes"},
             {"run -a " + tiny + " --search-parameters " + (dir / "search.txt").string() + " -s x",
              (dir / "search.txt").string() + ":2: line longer than 1048576 bytes"}}) {
        const Outcome o = shell("ulimit -v 4000000; " + std::string(MWSEP_BINARY) + " " + arguments);
        EXPECT_EQ(o.status, 3) << arguments << "\n" << o.output.substr(0, 300);
        EXPECT_NE(o.output.find(where), std::string::npos) << o.output.substr(0, 300);
        EXPECT_LT(o.output.size(), 400u) << o.output.substr(0, 300);
    }
    std::filesystem::remove_all(dir);
}

// bench-cpu --csv on a device is refused before reading it (/dev/full reads as an endless line of NULs).
TEST(CommandLine, BenchCpuRefusesANonRegularCsv) {
    const std::string tiny = testsupport::workunit("tiny").string();
    const Outcome o = shell("timeout 20 " + std::string(MWSEP_BINARY) + " bench-cpu --integrators fast1 --min-samples 1 -a " +
                            tiny + " --csv /dev/full");
    EXPECT_EQ(o.status, 2) << o.output;
    EXPECT_NE(o.output.find("cannot write /dev/full: it is not a regular file"), std::string::npos) << o.output;
    expect_refused("bench-cpu --integrators fast1 --min-samples 1 -a " + tiny + " --csv /nonexistent-dir/r.csv",
                   "cannot write /nonexistent-dir/r.csv: the directory /nonexistent-dir does not exist");
}

// The benches' outputs are never their inputs: a --csv (or bench's --meta) naming the work unit, through
// a symbolic link too, is refused before any work, and the work unit is left as it was.
TEST(CommandLine, BenchOutputsThatAreInputsAreRefused) {
    const auto dir = std::filesystem::temp_directory_path() / "mwsep_bench_outputs";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto wu = dir / "astronomy_parameters.txt";
    std::filesystem::copy_file(testsupport::workunit("tiny"), wu);
    std::filesystem::create_symlink(wu, dir / "link.txt");
    const auto before = std::filesystem::file_size(wu);
    for (const std::string& out : {wu.string(), (dir / "link.txt").string()})
        expect_refused("bench-cpu --integrators fast1 --min-samples 1 -a " + wu.string() + " --csv " + out,
                       "--csv: ");
    if (cuda_built())
        expect_refused("bench -a " + wu.string() + " -s " + wu.string() + " --meta " + wu.string(), "--meta: ");
    EXPECT_EQ(std::filesystem::file_size(wu), before);
    std::filesystem::remove_all(dir);
}

// Sizes that fit the syntax but not a machine are refused before any table is built, naming the keys and
// their values, on every command that builds tables; --force lifts the limit.
TEST(CommandLine, OversizedWorkIsRefusedUnlessForced) {
    const auto dir = scratch("work-size");
    const auto huge = dir / "huge.txt";
    const auto conv = dir / "conv.txt";
    {
        std::string text = tiny_with("mu[min,max,steps]", "mu[min,max,steps]: 133, 249, 100000");
        const auto at = text.find("nu[min,max,steps]");
        text.replace(at, text.find('\n', at) - at, "nu[min,max,steps]: -1.25, 1.25, 100000");
        const auto r = text.find("r[min,max,steps]");
        text.replace(r, text.find('\n', r) - r, "r[min,max,steps]: 16.0, 22.5, 1000");
        write_text(huge, text);
    }
    write_text(conv, tiny_with("convolve:", "convolve: 100000"));
    const std::string stars = (testsupport::oracle_dir() / "stars" / "stars-20-first1000.txt").string();
    const std::string u = huge.string();
    const std::string grid = "the integral has 1.2e+15 quadrature points per component, above the limit of 1e+12 "
                             "(the wedge: mu steps 100000 x nu steps 100000 x r steps 1000; convolve 120); give --force";
    for (const std::string& command : {"skipping -a " + u, "generate --count 5 -o " + (dir / "o.txt").string() + " -a " + u,
                                       "bench-cpu --min-samples 1 -a " + u, "run -a " + u + " -s " + stars}) {
        const auto t0 = std::chrono::steady_clock::now();
        // Under 4 GB of address space: the tables of this grid would be 300 GB; the check comes first.
        const Outcome o = shell("ulimit -v 4000000; " + std::string(MWSEP_BINARY) + " " + command);
        EXPECT_EQ(o.status, 3) << command << "\n" << o.output;
        EXPECT_NE(o.output.find(grid), std::string::npos) << command << "\n" << o.output;
        EXPECT_EQ(o.output.find("bad_alloc"), std::string::npos) << o.output;
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0) << command;
    }
    expect_refused("skipping -a " + conv.string(), "convolve 100000 is above the limit of 4096", 3);
    // With --force the limit is lifted: a convolve of 5000 on the tiny grid takes about a second.
    write_text(conv, tiny_with("convolve:", "convolve: 5000"));
    expect_refused("skipping -a " + conv.string(), "convolve 5000 is above the limit of 4096", 3);
    const Outcome forced = mwsep("skipping --force -a " + conv.string());
    EXPECT_EQ(forced.status, 0) << forced.output;
    EXPECT_NE(forced.output.find("work_unit,area,stream"), std::string::npos) << forced.output;
    std::filesystem::remove_all(dir);
}

TEST(CommandLine, SkippingRefusesUnknownOptionsAndMalformedNumbers) {
    expect_refused("skipping -a x.txt --bogus", "mwsep skipping: error: unknown option '--bogus'");
    expect_refused("skipping -a x.txt --np 2x -p 1 2", "mwsep skipping: error: --np expects an integer, found '2x'");
}

TEST(CommandLine, BenchCpuRefusesUnknownOptionsMalformedNumbersAndUnknownIntegrators) {
    expect_refused("bench-cpu -a x.txt --bogus", "mwsep bench-cpu: error: unknown option '--bogus'");
    expect_refused("bench-cpu -a x.txt --min-samples abc", "mwsep bench-cpu: error: --min-samples expects an integer, found 'abc'");
    expect_refused("bench-cpu -a x.txt --repeats 3",
                   "mwsep bench-cpu: error: --repeats is an old spelling: write --min-samples N");
    expect_refused("bench-cpu -a x.txt --integrators fastx",
                   "mwsep bench-cpu: error: --integrators names 'fastx', which is not one of reference, fast1, fastN");
    expect_refused("bench-cpu -a " + testsupport::workunit("tiny").string() + " --slice-load",
                   "--slice-load needs --slices 2 or more");
}

TEST(CommandLine, VariantsRefusesUnknownOptionsAndMalformedNumbers) {
    if (!cuda_built()) {
        expect_refused("variants --bogus", "mwsep variants: error: needs a build with CUDA", 3);
        return;
    }
    expect_refused("variants --bogus", "mwsep variants: error: unknown option '--bogus'");
    expect_refused("variants --streams abc", "mwsep variants: error: --streams expects an integer, found 'abc'");
    expect_refused("variants --streams 5", "mwsep variants: error: --streams must be between 0 and 4, found '5'");
}

TEST(CommandLine, BenchRefusesUnknownOptionsMalformedNumbersAndSlicesOfThesisVariants) {
    if (!cuda_built()) {
        expect_refused("bench " + inputs + " --bogus", "mwsep bench: error: needs a build with CUDA", 3);
        return;
    }
    expect_refused("bench " + inputs + " --bogus", "mwsep bench: error: unknown option '--bogus'");
    expect_refused("bench " + inputs + " --min-samples abc", "mwsep bench: error: --min-samples expects an integer, found 'abc'");
    expect_refused("bench " + inputs + " --expect 1.2.3", "mwsep bench: error: --expect expects a finite number, found '1.2.3'");
    expect_refused("bench " + inputs + " --variants shared-fast-unrolled-f64 --slices 2",
                   "mwsep bench: error: --slices applies to the modern variants only; shared-fast-unrolled-f64");
    expect_refused("bench " + inputs + " --variants modern-f64,nope",
                   "mwsep bench: error: --variants: unknown kernel variant 'nope'");
}

// The measurement options are the harness's: checked before any file is read, printed on request as the
// criterion the runner records, and patterns select variants.
TEST(CommandLine, BenchTakesTheHarnesssMeasurementOptions) {
    if (!cuda_built()) GTEST_SKIP() << "no CUDA backend in this build";
    const Outcome printed = mwsep("bench --print-criterion --min-samples 7 --max-samples 9 --cold --throttle keep");
    EXPECT_EQ(printed.status, 0) << printed.output;
    for (const char* field : {"\"min_samples\": 7", "\"max_samples\": 9", "\"cache\": \"cold\"", "\"throttle\": \"keep\"",
                              "\"command\": \"mwsep bench\""})
        EXPECT_NE(printed.output.find(field), std::string::npos) << field << " in " << printed.output;
    expect_refused("bench " + inputs + " --min-samples 9 --max-samples 3",
                   "mwsep bench: error: --max-samples must be at least the minimum (9), found '3'");
    expect_refused("bench " + inputs + " --repeats 3", "mwsep bench: error: --repeats is an old spelling: write --min-samples N");
    expect_refused("bench " + inputs + " --throttle never", "mwsep bench: error: --throttle must be one of discard, keep, found 'never'");
    expect_refused("bench " + inputs + " --variants '*-fast-unrolled-f16'",
                   "mwsep bench: error: --variants: no kernel variant matches '*-fast-unrolled-f16'");
    // A pattern that matches: parsing passes and the missing file is the error.
    expect_refused("bench " + inputs + " --variants '*-fast-unrolled-f64'", "no-such-unit.txt", 3);
    // A command that times the host only takes no GPU option.
    expect_refused("bench-cpu -a x.txt --cold", "mwsep bench-cpu: error: unknown option '--cold'");
    expect_refused("bench-cpu -a x.txt --throttle keep", "mwsep bench-cpu: error: unknown option '--throttle'");
}

// bench reads its inputs as run does: the parameter-vector options are accepted (and checked) there too.
TEST(CommandLine, BenchTakesTheInputOptionsOfRun) {
    if (!cuda_built()) GTEST_SKIP() << "no CUDA backend in this build";
    expect_refused("bench " + inputs + " --np 2 --variants modern-f64", "mwsep bench: error: --np and -p v1 ... vN go together");
    expect_refused("bench " + inputs + " --r-binning foo --variants modern-f64",
                   "mwsep bench: error: --r-binning must be one of magnitude, kpc, found 'foo'");
    // Valid options: parsing passes and the missing file is the error.
    expect_refused("bench " + inputs + " --r-binning kpc --search-parameters s.txt --variants modern-f64",
                   "no-such-unit.txt", 3);
}

}  // namespace

namespace {

// A catalogue whose arrays cannot fit in the host's memory is refused before anything is allocated, naming
// --count (it used to end in std::bad_alloc after seconds of work).
TEST(CommandLine, GenerateRefusesACountWhoseCatalogueCannotFit) {
    const auto o = mwsep("generate -a " + testsupport::workunit("tiny").string() + " -o " +
                         (std::filesystem::temp_directory_path() / "mwsep-never-written.txt").string() +
                         " --count 1000000000000");
    EXPECT_EQ(o.status, 2) << o.output;
    EXPECT_NE(o.output.find("mwsep generate: error: --count needs"), std::string::npos) << o.output;
    EXPECT_EQ(o.output.find("bad_alloc"), std::string::npos) << o.output;
}

}  // namespace
