/// @file csv.hpp
/// @brief Appends rows to a CSV file whose header is fixed: a new file gets the header, an existing file
/// must already have exactly that header (so that a resumed sweep never mixes two layouts). Every write
/// replaces the whole file atomically, so that an interruption leaves the header and complete rows only;
/// each row is added under an exclusive lock on the file's folder to the file as it is then, so that two
/// processes appending to one file keep both their rows. Nothing is written before the first row.
///
/// The path `-` is standard output: the header, then the rows as they come; from the moment such an
/// appender is made, whatever else the process prints on standard output goes to standard error, so that
/// standard output holds the CSV alone.
#pragma once

#include <string>
#include <vector>

namespace harness {

/// Quotes a field when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& value);

/// Appends rows to one CSV file under a fixed header, which must match the header the file already has.
class CsvAppender {
public:
    /// Checks the existing @p path, if any (the header goes into a new or empty one with the first row); throws
    /// std::runtime_error if its header differs from @p header or it is not a writable regular file.
    CsvAppender(const std::string& path, std::vector<std::string> header);
    /// Appends one row; throws std::invalid_argument if it has not one value per column.
    void row(const std::vector<std::string>& values);

    /// The path that means standard output.
    static constexpr const char* standard_output = "-";

private:
    std::string path_;
    int stdout_fd_ = -1;      ///< for `-`: the process's original standard output
    bool header_written_ = false;
    std::vector<std::string> header_;
    /// Throws unless @p content (a file's text) is empty or begins with this header.
    void check_header(const std::string& content) const;
};

/// A number in the shortest form that reads back to the same double.
std::string csv_number(double v);

}  // namespace harness
