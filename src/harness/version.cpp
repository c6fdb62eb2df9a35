#include "harness/version.hpp"

namespace harness {
namespace detail {
const char* build_version();  // build_facts.cpp (configured by CMake)
const char* build_facts();    // build_facts.cpp
const char* build_commit();   // build_commit.cpp (written at every build)
}  // namespace detail

std::string build_commit() { return detail::build_commit(); }

std::string version_text(const std::string& program) {
    return program + " (" + detail::build_version() + ")\ncommit " + detail::build_commit() + "\n" + detail::build_facts() +
           "\n";
}

}  // namespace harness
