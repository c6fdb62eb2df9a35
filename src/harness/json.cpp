#include "harness/json.hpp"

#include <cmath>
#include <cstdio>

namespace harness {

std::string json_number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

void JsonObject::key(const std::string& k) {
    out_ << (first_ ? "\n" : ",\n") << std::string(2 * indent_, ' ') << json_string(k) << ": ";
    first_ = false;
}

JsonObject& JsonObject::number(const std::string& k, double v) {
    key(k);
    out_ << json_number(v);
    return *this;
}
JsonObject& JsonObject::integer(const std::string& k, long long v) {
    key(k);
    out_ << v;
    return *this;
}
JsonObject& JsonObject::string(const std::string& k, const std::string& v) {
    key(k);
    out_ << json_string(v);
    return *this;
}
JsonObject& JsonObject::boolean(const std::string& k, bool v) {
    key(k);
    out_ << (v ? "true" : "false");
    return *this;
}
JsonObject& JsonObject::numbers(const std::string& k, const std::vector<double>& v) {
    key(k);
    out_ << '[';
    for (std::size_t i = 0; i < v.size(); ++i) out_ << (i ? ", " : "") << json_number(v[i]);
    out_ << ']';
    return *this;
}
JsonObject JsonObject::object(const std::string& k) {
    key(k);
    return JsonObject(out_, indent_ + 1);
}
void JsonObject::close() { out_ << '\n' << std::string(2 * (indent_ - 1), ' ') << '}'; }

}  // namespace harness
