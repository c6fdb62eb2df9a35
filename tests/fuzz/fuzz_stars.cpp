// libFuzzer target: star catalogue text, read as the program reads it. Bad input must end in an
// InputError; any other exception, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "mwsep/model/input_error.hpp"
#include "mwsep/model/stars.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        (void)mwsep::model::parse_stars(in, "fuzz-input");
    } catch (const mwsep::model::InputError&) {
    }
    return 0;
}
