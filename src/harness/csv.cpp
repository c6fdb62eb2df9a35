#include "harness/csv.hpp"

#include <charconv>
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
    std::ifstream existing(path_);
    std::string first;
    const bool has_content = existing && std::getline(existing, first) && !first.empty();
    existing.close();
    if (has_content && first != join(header_))
        throw std::runtime_error(path_ + ": existing header '" + first + "' differs from the expected '" + join(header_) +
                                 "'; write to a new file");
    out_.open(path_, std::ios::app);
    if (!out_) throw std::runtime_error("cannot write " + path_);
    if (!has_content) out_ << join(header_) << '\n';
}

void CsvAppender::row(const std::vector<std::string>& values) {
    if (values.size() != header_.size())
        throw std::invalid_argument(path_ + ": a row has " + std::to_string(values.size()) + " values for " +
                                    std::to_string(header_.size()) + " columns");
    out_ << join(values) << '\n';
    out_.flush();
    if (!out_) throw std::runtime_error("error while writing " + path_);
}

}  // namespace harness
