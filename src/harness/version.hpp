/// @file version.hpp
/// @brief What `<program> --version` prints: the project's version, the commit the program was built from
/// and the build's facts (compiler, flags, CUDA or not), all taken from CMake's configuration and from git
/// at build time.
#pragma once

#include <string>

namespace harness {

/// The lines `<program> --version` prints for @p program, ending in a line break.
std::string version_text(const std::string& program);

/// The commit the build was made from (a full hash, "... (with uncommitted changes)" when the tree differed,
/// or "unknown (...)" outside a git checkout).
std::string build_commit();

}  // namespace harness
