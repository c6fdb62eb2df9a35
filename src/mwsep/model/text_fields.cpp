#include "mwsep/model/text_fields.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "harness/excerpt.hpp"

namespace mwsep::model {

std::string_view trim(std::string_view s) {
    const char* ws = " \t\r\n\f\v";
    const auto first = s.find_first_not_of(ws);
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(ws);
    return s.substr(first, last - first + 1);
}

double parse_double(std::string_view token, const std::string& file, int line, const std::string& key) {
    // The common case without a copy: std::from_chars, correctly rounded as strtod is, so the same double.
    // A token it does not take whole and finite (a leading '+', a hexadecimal number, a range error, nan or
    // inf, no number) goes the strtod way below, which decides its value or its message as it always did.
    const std::string_view view = trim(token);
    if (!view.empty()) {
        double quick = 0;
        const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), quick);
        if (ec == std::errc() && end == view.data() + view.size() && std::isfinite(quick)) return quick;
    }
    const std::string text(view);
    if (text.empty()) throw InputError(file, line, key, "expected a number, found nothing");
    // strtod accepts "nan" and "inf"; both are rejected below with their own message.
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    // The whole token must be the number: strtod stops at an embedded NUL byte as at the end of the text.
    if (end == text.c_str() || end != text.c_str() + text.size())
        throw InputError(file, line, key, "expected a number, found " + harness::quoted(text));
    if (!std::isfinite(v) || (errno == ERANGE && std::fabs(v) > 1.0))
        throw InputError(file, line, key, "expected a finite number, found " + harness::quoted(text));
    return v;
}

int parse_int(std::string_view token, const std::string& file, int line, const std::string& key) {
    const std::string_view text = trim(token);
    int v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw InputError(file, line, key, "expected an integer, found " + harness::quoted(text));
    return v;
}

std::vector<std::string_view> split_commas(std::string_view s, const std::string& file, int line,
                                           const std::string& key) {
    std::vector<std::string_view> out;
    if (trim(s).empty()) return out;
    std::size_t start = 0;
    while (true) {
        const auto comma = s.find(',', start);
        const auto field = trim(s.substr(start, comma == std::string_view::npos ? s.npos : comma - start));
        if (field.empty()) throw InputError(file, line, key, "empty value between commas");
        out.push_back(field);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::vector<std::string_view> split_whitespace(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        const auto start = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i > start) out.push_back(s.substr(start, i - start));
    }
    return out;
}

namespace {
/// A UTF-8 byte-order mark is invisible in an editor: a key it precedes looks right and is not, so the
/// first line of every input is checked for one and refused by name.
void refuse_byte_order_mark(const std::string& text, const std::string& file, int line) {
    if (line == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0)
        throw InputError(file, 1, "", "the file begins with a UTF-8 byte-order mark (three invisible bytes); "
                                      "save it as plain text without one");
}
}  // namespace

bool read_line(std::istream& in, std::string& text, const std::string& file, int line) {
    text.clear();
    std::streambuf* buffer = in.rdbuf();
    const std::istream::sentry ok(in, true);
    if (!ok || !buffer) return false;
    for (;;) {
        const int c = buffer->sbumpc();
        if (c == std::char_traits<char>::eof()) {
            // As std::getline: a last line without a line break counts, an empty remainder does not.
            in.setstate(text.empty() ? std::ios::eofbit | std::ios::failbit : std::ios::eofbit);
            refuse_byte_order_mark(text, file, line);
            return !text.empty();
        }
        if (c == '\n') {
            refuse_byte_order_mark(text, file, line);
            return true;
        }
        if (text.size() >= max_line_bytes)
            throw InputError(file, line, "", "line longer than " + std::to_string(max_line_bytes) +
                                                 " bytes (not a text input of this program), starting " +
                                                 harness::quoted(text));
        text.push_back(static_cast<char>(c));
    }
}

LineReader::LineReader(std::istream& in, std::string file) : file_(std::move(file)) {
    std::string text;
    int number = 0;
    while (read_line(in, text, file_, number + 1)) {
        ++number;
        if (!trim(text).empty()) lines_.emplace_back(number, text);
    }
}

std::string LineReader::peek_key() const {
    if (at_end()) return {};
    const auto& text = lines_[next_].second;
    const auto colon = text.find(':');
    return std::string(trim(std::string_view(text).substr(0, colon)));
}

LineReader::Field LineReader::expect(const std::string& key) {
    if (at_end()) throw InputError(file_, end_line(), key, "missing (file ends before this key)");
    const auto& [number, text] = lines_[next_];
    const auto colon = text.find(':');
    if (colon == std::string::npos)
        throw InputError(file_, number, key, "expected '" + key + ": ...', found " + harness::quoted(trim(text)));
    const std::string found(trim(std::string_view(text).substr(0, colon)));
    if (found != key)
        throw InputError(file_, number, key, "expected key '" + key + "', found " + harness::quoted(found));
    ++next_;
    const std::string base(trim(std::string_view(found).substr(0, found.find('['))));
    const int seen = key_counts_[base]++;
    key_lines_[seen ? base + "#" + std::to_string(seen) : base] = number;
    return {found, std::string(trim(std::string_view(text).substr(colon + 1))), number};
}

LineReader::Field LineReader::next_raw(const std::string& what) {
    if (at_end()) throw InputError(file_, end_line(), what, "missing (file ends too early)");
    const auto& [number, text] = lines_[next_++];
    return {"", std::string(trim(text)), number};
}

int LineReader::end_line() const { return lines_.empty() ? 1 : lines_.back().first; }

std::ifstream open_input(const std::string& path) {
    // A directory opens as an empty stream and a device such as /dev/zero reads without end, so both are
    // named for what they are before reading. Pipes stay allowed: `-s <(zcat stars.gz)` is a pipe.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!ec) {
        if (std::filesystem::is_directory(status)) throw InputError(path, 0, "", "is a directory, not a file");
        if (std::filesystem::is_character_file(status) || std::filesystem::is_block_file(status) ||
            std::filesystem::is_socket(status))
            throw InputError(path, 0, "", "is not a regular file (a device or a socket)");
    }
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "", "cannot open file for reading");
    return in;
}

}  // namespace mwsep::model
