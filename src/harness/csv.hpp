/// @file csv.hpp
/// @brief Appends rows to a CSV file whose header is fixed: a new file gets the header, an existing file
/// must already have exactly that header (so that a resumed sweep never mixes two layouts).
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace harness {

/// Quotes a field when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& value);

/// Appends rows to one CSV file under a fixed header, which must match the header the file already has.
class CsvAppender {
public:
    /// Opens @p path for appending; throws std::runtime_error if its header differs from @p header.
    CsvAppender(const std::string& path, std::vector<std::string> header);
    /// Appends one row; throws std::invalid_argument if it has not one value per column.
    void row(const std::vector<std::string>& values);

private:
    std::string path_;
    std::vector<std::string> header_;
    std::ofstream out_;
};

/// A number in the shortest form that reads back to the same double.
std::string csv_number(double v);

}  // namespace harness
