// A small JSON reader for the oracle's expected.json files (objects, arrays, numbers, strings, literals).
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace testjson {

struct Value {
    enum Kind { null, boolean, number, string, array, object } kind = null;
    double num = 0;
    std::string str;
    std::vector<Value> items;
    std::map<std::string, Value> fields;

    const Value& operator[](const std::string& k) const {
        const auto it = fields.find(k);
        if (it == fields.end()) throw std::out_of_range("JSON key '" + k + "' not found");
        return it->second;
    }
    bool has(const std::string& k) const { return fields.count(k) != 0; }
    std::vector<double> numbers() const {
        std::vector<double> out;
        for (const auto& v : items) out.push_back(v.num);
        return out;
    }
};

class Parser {
public:
    explicit Parser(const std::string& text) : s_(text) {}
    Value parse() {
        Value v = value();
        skip();
        if (i_ != s_.size()) throw std::runtime_error("trailing JSON content");
        return v;
    }

private:
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    char peek() {
        skip();
        if (i_ >= s_.size()) throw std::runtime_error("unexpected end of JSON");
        return s_[i_];
    }
    void expect(char c) {
        if (peek() != c) throw std::runtime_error(std::string("expected '") + c + "' in JSON");
        ++i_;
    }
    std::string text() {
        expect('"');
        std::string out;
        while (i_ < s_.size() && s_[i_] != '"') {
            if (s_[i_] == '\\') ++i_;
            out += s_[i_++];
        }
        ++i_;
        return out;
    }
    Value value() {
        Value v;
        const char c = peek();
        if (c == '{') {
            v.kind = Value::object;
            ++i_;
            if (peek() == '}') { ++i_; return v; }
            while (true) {
                const std::string k = text();
                expect(':');
                v.fields[k] = value();
                if (peek() == ',') { ++i_; continue; }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = Value::array;
            ++i_;
            if (peek() == ']') { ++i_; return v; }
            while (true) {
                v.items.push_back(value());
                if (peek() == ',') { ++i_; continue; }
                expect(']');
                return v;
            }
        }
        if (c == '"') {
            v.kind = Value::string;
            v.str = text();
            return v;
        }
        if (s_.compare(i_, 4, "true") == 0) { i_ += 4; v.kind = Value::boolean; v.num = 1; return v; }
        if (s_.compare(i_, 5, "false") == 0) { i_ += 5; v.kind = Value::boolean; return v; }
        if (s_.compare(i_, 4, "null") == 0) { i_ += 4; return v; }
        char* end = nullptr;
        v.kind = Value::number;
        v.num = std::strtod(s_.c_str() + i_, &end);
        if (end == s_.c_str() + i_) throw std::runtime_error("bad JSON value");
        i_ = static_cast<std::size_t>(end - s_.c_str());
        return v;
    }
    const std::string& s_;
    std::size_t i_ = 0;
};

}  // namespace testjson
