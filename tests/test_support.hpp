// Paths and helpers shared by the tests.
#pragma once

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json_lite.hpp"

namespace testsupport {

inline std::filesystem::path source_dir() { return MWSEP_SOURCE_DIR; }
/// The team's shared folder (oracle cases and real catalogues): MWSEP_SHARED_DIR if set (a copy carried
/// to another machine), else the folder beside the checkout; may be absent.
inline std::filesystem::path shared_dir() {
    const char* env = std::getenv("MWSEP_SHARED_DIR");
    return env ? std::filesystem::path(env) : source_dir() / ".." / "shared";
}
inline std::filesystem::path workunit(const std::string& name) {
    return source_dir() / "data" / "workunits" / name / "astronomy_parameters.txt";
}

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
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

/// The star catalogue of an oracle case: `copy:` in stars.ref if given, else the base name of `path:`.
inline std::filesystem::path oracle_stars(const std::filesystem::path& case_dir) {
    std::ifstream in(case_dir / "stars.ref");
    std::string line, path;
    while (std::getline(in, line)) {
        if (line.rfind("copy: ", 0) == 0) return case_dir / line.substr(6);
        if (line.rfind("path: ", 0) == 0) path = line.substr(6);
    }
    return shared_dir() / "data" / "stars" / std::filesystem::path(path).filename();
}

}  // namespace testsupport
