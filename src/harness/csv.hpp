/// @file csv.hpp
/// @brief Appends rows to a CSV file whose header is fixed: a new file gets the header, an existing file
/// must already have exactly that header (so that a resumed sweep never mixes two layouts). Every write
/// replaces the whole file atomically, so that an interruption leaves the header and complete rows only.
#pragma once

#include <string>
#include <vector>

namespace harness {

/// Quotes a field when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& value);

/// Appends rows to one CSV file under a fixed header, which must match the header the file already has.
class CsvAppender {
public:
    /// Reads the existing @p path, if any, and writes the header to a new or empty one; throws
    /// std::runtime_error if its header differs from @p header or it is not a writable regular file.
    CsvAppender(const std::string& path, std::vector<std::string> header);
    /// Appends one row; throws std::invalid_argument if it has not one value per column.
    void row(const std::vector<std::string>& values);

private:
    std::string path_;
    std::vector<std::string> header_;
    std::string content_;  ///< the whole file as written so far: each row rewrites it through a temporary
};

/// A number in the shortest form that reads back to the same double.
std::string csv_number(double v);

}  // namespace harness
