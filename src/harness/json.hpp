/// @file json.hpp
/// @brief A minimal JSON writer for results (numbers written with 17 significant digits).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace harness {

/// Streams one JSON object; keys are written in the order they are added.
class JsonObject {
public:
    /// Writes the opening brace to @p out; @p indent is the nesting depth of the keys (two spaces per level).
    explicit JsonObject(std::ostream& out, int indent = 1) : out_(out), indent_(indent) { out_ << '{'; }
    /// Adds @p key with a number: 17 significant digits, null when not finite. Every adder returns *this.
    JsonObject& number(const std::string& key, double v);
    /// Adds @p key with an integer, written exactly.
    JsonObject& integer(const std::string& key, long long v);
    /// Adds @p key with a string value, escaped for JSON.
    JsonObject& string(const std::string& key, const std::string& v);
    /// Adds @p key with `true` or `false`.
    JsonObject& boolean(const std::string& key, bool v);
    /// Adds @p key with an array of numbers, each written as number() writes it.
    JsonObject& numbers(const std::string& key, const std::vector<double>& v);
    /// Starts a nested object under @p key; finish it with close() before adding more keys here.
    JsonObject object(const std::string& key);
    /// Writes the closing brace on a line of its own; call it once, after the last key.
    void close();

private:
    void key(const std::string& k);
    std::ostream& out_;
    int indent_;
    bool first_ = true;
};

/// A double as JSON: 17 significant digits, and null for non-finite values (JSON has no NaN).
std::string json_number(double v);
/// A string as a JSON string literal with escapes.
std::string json_string(const std::string& s);

}  // namespace harness
