#include "mwsep/model/stars.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "harness/excerpt.hpp"

#include "mwsep/model/text_fields.hpp"

namespace mwsep::model {

namespace {
constexpr long long max_reserved_stars = 1 << 20;

/// split_whitespace() without its vector (one allocation a star): the first three fields of @p s into
/// @p field, and the number of fields there are (the same whitespace, the same count).
std::size_t star_fields(std::string_view s, std::string_view (&field)[3]) {
    std::size_t count = 0, i = 0;
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (i < s.size()) {
        while (i < s.size() && space(s[i])) ++i;
        const auto start = i;
        while (i < s.size() && !space(s[i])) ++i;
        if (i > start) {
            if (count < 3) field[count] = s.substr(start, i - start);
            ++count;
        }
    }
    return count;
}
}  // namespace

StarCatalogue parse_stars(std::istream& in, const std::string& source) {
    StarCatalogue stars;
    std::string text;
    int line = 0;
    long long declared = -1;
    int count_line = 0;
    while (read_line(in, text, source, line + 1)) {
        ++line;
        const auto body = trim(text);
        if (body.empty()) continue;
        if (declared < 0) {
            count_line = line;
            declared = parse_int(body, source, line, "star count");
            if (declared <= 0)
                throw InputError(source, line, "star count", "must be positive (no stars to evaluate), found " +
                                                                 std::to_string(declared));
            // The count is only a claim until the lines are read: room for a million stars at most is made up
            // front, so that a wrong or hostile count cannot ask for gigabytes before the count check fires.
            const auto room = static_cast<std::size_t>(std::min<long long>(declared, max_reserved_stars));
            stars.l.reserve(room);
            stars.b.reserve(room);
            stars.r.reserve(room);
            continue;
        }
        std::string_view fields[3];
        const std::size_t n_fields = star_fields(body, fields);
        if (n_fields != 3)
            throw InputError(source, line, "star", "expected 3 numbers 'l b r', found " + std::to_string(n_fields));
        if (static_cast<long long>(stars.size()) == declared)
            throw InputError(source, line, "star count",
                             "the file has more star lines than the " + std::to_string(declared) + " declared on line " +
                                 std::to_string(count_line));
        const double l = parse_double(fields[0], source, line, "l");
        const double b = parse_double(fields[1], source, line, "b");
        const double r = parse_double(fields[2], source, line, "r");
        if (r <= 0) throw InputError(source, line, "r", "distance must be positive, found " + harness::quoted(fields[2]));
        if (b < -90 || b > 90)
            throw InputError(source, line, "b", "latitude must lie in [-90, 90], found " + harness::quoted(fields[1]));
        stars.l.push_back(l);
        stars.b.push_back(b);
        stars.r.push_back(r);
    }
    if (declared < 0) throw InputError(source, 1, "star count", "the file is empty (expected a star count)");
    if (static_cast<long long>(stars.size()) != declared)
        throw InputError(source, line, "star count",
                         "line " + std::to_string(count_line) + " declares " + std::to_string(declared) +
                             " stars but the file has " + std::to_string(stars.size()));
    return stars;
}

StarCatalogue read_stars(const std::string& path) {
    auto in = open_input(path);
    return parse_stars(in, path);
}

void write_stars(std::ostream& out, const StarCatalogue& stars) {
    out << stars.size() << '\n';
    char buf[128];
    for (std::size_t i = 0; i < stars.size(); ++i) {
        std::snprintf(buf, sizeof buf, "%.9f %.9f %.9f\n", stars.l[i], stars.b[i], stars.r[i]);
        out << buf;
    }
}

}  // namespace mwsep::model
