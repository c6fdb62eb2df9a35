// libFuzzer target: the fit's checkpoint file (mwsep fit --checkpoint), read as a resumed fit reads it.
// Every input is read twice: as it is (so that the checksum refuses damage first), and with the checksum
// comparison skipped, so that the rest of the reader (counts, lengths, values) meets the mutated text too.
// Bad input must end in std::runtime_error; any other exception, a crash, a sanitizer report, a timeout or
// an allocation beyond libFuzzer's memory limit is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "mwsep/fit/fit_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    // The shape of the seeds: 3 parameters, a population of 6, at most 40 generations.
    const mwsep::fit::FitCheckpointShape shape{3, 6, 40, 1e3};
    for (const bool verify : {true, false}) {
        try {
            const auto c = mwsep::fit::parse_fit_checkpoint(text, "fuzz-input", shape, verify);
            // What the reader promises of what it accepts.
            if (c.x.size() != 6 || c.champion_x.size() != 3 || c.generation > 40 || c.history.size() > 41u) __builtin_trap();
            for (const auto& x : c.x)
                for (double u : x)
                    if (!(u >= 0 && u <= 1)) __builtin_trap();
        } catch (const std::runtime_error&) {
        }
    }
    return 0;
}
