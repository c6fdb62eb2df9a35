/// @file json.hpp
/// @brief A minimal JSON writer for results (numbers written with 17 significant digits).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mwsep::app {

/// Streams one JSON object; keys are written in the order they are added.
class JsonObject {
public:
    explicit JsonObject(std::ostream& out, int indent = 1) : out_(out), indent_(indent) { out_ << '{'; }
    JsonObject& number(const std::string& key, double v);
    JsonObject& integer(const std::string& key, long long v);
    JsonObject& string(const std::string& key, const std::string& v);
    JsonObject& boolean(const std::string& key, bool v);
    JsonObject& numbers(const std::string& key, const std::vector<double>& v);
    /// Starts a nested object under @p key; finish it with close() before adding more keys here.
    JsonObject object(const std::string& key);
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

}  // namespace mwsep::app
