/// @file input_error.hpp
/// @brief The one exception type for bad input: it names the file, the line, the key and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace mwsep::model {

/// Thrown for any malformed or invalid input. `what()` reads "file:line: key: message".
class InputError : public std::runtime_error {
public:
    /// @p line is 1-based, or 0 when the error concerns the whole file; @p key may be empty.
    InputError(const std::string& file, int line, const std::string& key, const std::string& message)
        : std::runtime_error(format(file, line, key, message)), file_(file), line_(line), key_(key) {}

    const std::string& file() const { return file_; }  ///< the input the error is in
    int line() const { return line_; }  ///< 1-based line number, or 0 when the error concerns the whole file
    const std::string& key() const { return key_; }  ///< key of the offending line, or empty

private:
    static std::string format(const std::string& file, int line, const std::string& key, const std::string& msg) {
        std::string out = file;
        if (line > 0) out.append(":").append(std::to_string(line));
        out.append(": ");
        if (!key.empty()) out.append(key).append(": ");
        out.append(msg);
        return out;
    }
    std::string file_;
    int line_;
    std::string key_;
};

}  // namespace mwsep::model
