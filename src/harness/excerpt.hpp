/// @file excerpt.hpp
/// @brief Offending text as messages quote it: in single quotes, cut to a readable length.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace harness {

/// The most characters of offending text a message quotes: enough to recognise a value or a line, and a
/// megabyte-long line of junk still gives a one-line message.
inline constexpr std::size_t max_quoted_chars = 80;

/// @p text in single quotes; text longer than max_quoted_chars is cut there and ends with "...".
inline std::string quoted(std::string_view text) {
    if (text.size() <= max_quoted_chars) return "'" + std::string(text) + "'";
    return "'" + std::string(text.substr(0, max_quoted_chars)) + "...'";
}

}  // namespace harness
