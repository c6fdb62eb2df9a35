/// @file text_fields.hpp
/// @brief Strict number parsing and a line reader with positions, shared by every input parser.
#pragma once

#include <fstream>
#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mwsep/model/input_error.hpp"

namespace mwsep::model {

/// Trims ASCII whitespace from both ends.
std::string_view trim(std::string_view s);

/// Parses a whole token as a finite double; throws InputError naming @p file, @p line and @p key otherwise.
double parse_double(std::string_view token, const std::string& file, int line, const std::string& key);

/// Parses a whole token as an int; throws InputError otherwise.
int parse_int(std::string_view token, const std::string& file, int line, const std::string& key);

/// Splits on commas (each with optional surrounding whitespace); an empty field is an error.
std::vector<std::string_view> split_commas(std::string_view s, const std::string& file, int line,
                                           const std::string& key);

/// Splits on runs of whitespace.
std::vector<std::string_view> split_whitespace(std::string_view s);

/// The longest line a reader accepts [bytes]: the longest valid line is a few hundred bytes, and without a
/// bound a file with no line break (a device, a corrupted file) would be read into memory until it runs out.
inline constexpr std::size_t max_line_bytes = std::size_t{1} << 20;

/// std::getline with a bound: reads the next line of @p in (without its '\n') into @p text; false at the end
/// of the input. Throws InputError naming @p file and line @p line if the line exceeds max_line_bytes.
bool read_line(std::istream& in, std::string& text, const std::string& file, int line);

/// Reads a text file line by line, skipping blank lines, and remembers line numbers for messages.
class LineReader {
public:
    /// Reads every line of @p in at once; @p file names the input in error messages.
    LineReader(std::istream& in, std::string file);

    /// One `key: value` line.
    struct Field {
        std::string key;    ///< text before the first ':', trimmed
        std::string value;  ///< text after it, trimmed
        int line;           ///< 1-based line number
    };

    bool at_end() const { return next_ >= lines_.size(); }  ///< true once every non-blank line is consumed
    /// Key of the next line without consuming it ("" at the end of the file).
    std::string peek_key() const;
    /// Line number of the next line (the last line's number at the end of the file).
    int peek_line() const { return at_end() ? end_line() : lines_[next_].first; }
    /// Consumes the next line, which must have exactly the key @p key.
    Field expect(const std::string& key);
    /// Consumes the next line whatever it holds (raw text, for free-form lines).
    Field next_raw(const std::string& what);
    const std::string& file() const { return file_; }  ///< name of the input, for messages
    /// Line of each consumed key, by base name (text before '['), with "#n" appended to the n-th repeat
    /// (n >= 1): "stream_parameters#1" is the second stream's parameter line.
    const std::map<std::string, int>& key_lines() const { return key_lines_; }
    /// Line number of the last line, or 1 for an empty file (for "missing key" messages).
    int end_line() const;

private:
    std::vector<std::pair<int, std::string>> lines_;
    std::size_t next_ = 0;
    std::string file_;
    std::map<std::string, int> key_lines_;
    std::map<std::string, int> key_counts_;
};

/// Opens @p path for reading or throws InputError("cannot open").
std::ifstream open_input(const std::string& path);

}  // namespace mwsep::model
