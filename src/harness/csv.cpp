#include "harness/csv.hpp"

#include "harness/atomic_file.hpp"
#include "harness/excerpt.hpp"

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace harness {

std::string csv_field(const std::string& value) {
    if (value.find_first_of(",\"\n\r") == std::string::npos) return value;
    std::string out = "\"";
    for (char c : value) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_number(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

namespace {
std::string join(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
    return line;
}
}  // namespace

CsvAppender::CsvAppender(const std::string& path, std::vector<std::string> header)
    : path_(path), header_(std::move(header)) {
    // Refuses a directory, a device or a missing directory before reading: /dev/full, for one, reads as
    // an endless line of NULs.
    check_output_path(path_);
    std::ifstream existing(path_, std::ios::binary);
    if (existing) {
        std::ostringstream all;
        all << existing.rdbuf();
        content_ = all.str();
    }
    const std::string first = content_.substr(0, content_.find('\n'));
    const bool has_content = !first.empty();
    if (has_content && first != join(header_))
        throw std::runtime_error(path_ + ": existing header " + quoted(first) + " differs from the expected '" +
                                 join(header_) + "'; write to a new file");
    if (!has_content) {
        content_ += join(header_) + '\n';
        write_file_atomically(path_, [&](std::ostream& out) { out << content_; });
    }
}

void CsvAppender::row(const std::vector<std::string>& values) {
    if (values.size() != header_.size())
        throw std::invalid_argument(path_ + ": a row has " + std::to_string(values.size()) + " values for " +
                                    std::to_string(header_.size()) + " columns");
    // The rows so far plus this one replace the file as a whole; on failure the previous file stays and
    // the row is not kept, so a later row cannot follow a gap.
    const std::size_t before = content_.size();
    content_ += join(values) + '\n';
    try {
        write_file_atomically(path_, [&](std::ostream& out) { out << content_; });
    } catch (...) {
        content_.resize(before);
        throw;
    }
}

}  // namespace harness
