/// @file output_paths.hpp
/// @brief The one check every command of every program makes on its output paths before any work: an
/// output is never one of the command's inputs (the same path, a symbolic or hard link to it, another
/// spelling such as ./name), never the same file as another output, and writable (check_output_path).
#pragma once

#include <string>
#include <vector>

namespace harness {

/// A path given through an option (`-o`, `--csv`, ...): the option names it in every message.
struct NamedPath {
    std::string option;  ///< the option as typed, e.g. "--report"
    std::string path;    ///< the path it names
};

/// @p v with three significant digits ("2.8e+14"), for work estimates in messages.
std::string short_number(double v);

/// Whether @p a and @p b name the same file: the same device and inode when both exist (so links and
/// every spelling of one file compare equal), else the same path once made absolute and resolved as far
/// as it exists.
bool same_file(const std::string& a, const std::string& b);

/// Throws OptionError ("<command>: <option>: ...") when an output of @p outputs is one of @p inputs, the
/// same file as an earlier output, or cannot be written (see check_output_path). Entries with an empty
/// path in @p inputs are skipped (an input not given); every entry of @p outputs is checked, `-` (standard
/// output, for a CSV) only against another `-`. Writes nothing.
void check_outputs(const std::string& command, const std::vector<NamedPath>& inputs,
                   const std::vector<NamedPath>& outputs);

}  // namespace harness
