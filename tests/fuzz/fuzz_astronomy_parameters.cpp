// libFuzzer target: astronomy_parameters.txt text, read as the program reads it, then checked value by
// value as every command does before integrating. Bad input must end in an InputError; any other exception,
// a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const auto ap = mwsep::model::parse_astronomy_parameters(in, "fuzz-input");
        (void)mwsep::model::build_model(ap);
        (void)mwsep::model::build_model(ap, mwsep::model::RBinning::kpc);
    } catch (const mwsep::model::InputError&) {
    }
    return 0;
}
