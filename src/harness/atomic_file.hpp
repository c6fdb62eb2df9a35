/// @file atomic_file.hpp
/// @brief Output files that are either wholly written or not written at all: the content goes to a
/// temporary file in the same directory, is flushed to disk, and then replaces the target by rename(2).
/// An interrupted or failed write therefore leaves the previous file (or none) in place, never a part.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace harness {

/// Throws std::runtime_error naming @p path unless it can be written: its directory exists and is
/// writable, and the path itself is not a directory or another non-regular file. Called before long work,
/// so that a bad output path costs nothing.
void check_output_path(const std::string& path);

/// Writes @p path through a temporary file beside it: @p write fills the stream, then the temporary is
/// flushed, synced, renamed over @p path and the directory synced. On any failure (including an exception
/// from @p write) the temporary is removed and @p path is left as it was; throws std::runtime_error.
/// A symbolic link is followed: the file it names is replaced, the link stays.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace harness
