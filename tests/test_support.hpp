// Paths and helpers shared by the tests.
#pragma once

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "json_lite.hpp"

namespace testsupport {

inline std::filesystem::path source_dir() { return MWSEP_SOURCE_DIR; }

/// The oracle cases (work units run through the original programs, with their expected outputs) and the
/// real star catalogues they use, committed under tests/data/oracle.
inline std::filesystem::path oracle_dir() { return source_dir() / "tests" / "data" / "oracle"; }

/// @p p itself when it exists; otherwise throws, so the calling test fails (never skips) with a message
/// that names the missing path.
inline std::filesystem::path require_file(const std::filesystem::path& p) {
    if (!std::filesystem::exists(p))
        throw std::runtime_error("required test input is missing: " + p.string() +
                                 " (it is part of the repository; restore it with git checkout)");
    return p;
}

/// The folder of one oracle case; the test fails if its expected.json is absent.
inline std::filesystem::path oracle_case(const std::string& name) {
    const auto dir = oracle_dir() / name;
    require_file(dir / "expected.json");
    return dir;
}

/// The thesis-era sample work units (data/workunits-2009 of the team's shared folder: MWSEP_SHARED_DIR if
/// set, else the folder beside the checkout). They are not part of the repository; tests that read them
/// skip, with a message, where they are absent.
inline std::filesystem::path workunits_2009_dir() {
    const char* env = std::getenv("MWSEP_SHARED_DIR");
    const std::filesystem::path shared = env ? std::filesystem::path(env) : source_dir() / ".." / "shared";
    return shared / "data" / "workunits-2009";
}

inline std::filesystem::path workunit(const std::string& name) {
    return source_dir() / "data" / "workunits" / name / "astronomy_parameters.txt";
}

/// The whole file; throws (failing the test) when it cannot be read.
inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(require_file(p), std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline testjson::Value read_json(const std::filesystem::path& p) {
    const std::string text = read_text(p);
    return testjson::Parser(text).parse();
}

inline double relative_difference(double a, double b) {
    return std::fabs(a - b) / std::fmax(std::fabs(b), 1e-300);
}

/// The star catalogue of an oracle case: the `copy:` line of its stars.ref, relative to the case folder
/// (`repo:`, `commit:` and `path:` name the catalogue's source). A missing stars.ref, `copy:` line or
/// catalogue fails the test.
inline std::filesystem::path oracle_stars(const std::filesystem::path& case_dir) {
    const auto ref = require_file(case_dir / "stars.ref");
    std::ifstream in(ref);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("copy: ", 0) == 0) return require_file((case_dir / line.substr(6)).lexically_normal());
    throw std::runtime_error(ref.string() + ": no 'copy:' line naming the committed catalogue");
}

/// What a shell command printed and how it ended.
struct CommandOutcome {
    int status = -1;     ///< exit status (-1: it did not exit normally, or could not start)
    std::string output;  ///< standard output and standard error together
};

/// Runs @p command_line in the shell and collects what it printed, for tests of a program's command line.
inline CommandOutcome shell(const std::string& command_line) {
    CommandOutcome out;
    FILE* pipe = popen(("(" + command_line + ") 2>&1").c_str(), "r");
    if (!pipe) return out;
    char buffer[4096];
    while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.output.append(buffer, n);
    const int raw = pclose(pipe);
    out.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return out;
}

}  // namespace testsupport
