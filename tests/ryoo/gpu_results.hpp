// The file every GPU comparison of the ryoo tests is written to, when RYOO_GPU_RESULTS names a folder.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/csv.hpp"

namespace ryoo::testing_support {

/// gpu_correctness.csv in the folder RYOO_GPU_RESULTS names, or nullptr when it is not set.
inline harness::CsvAppender* results() {
    static std::unique_ptr<harness::CsvAppender> file = []() -> std::unique_ptr<harness::CsvAppender> {
        const char* dir = std::getenv("RYOO_GPU_RESULTS");
        if (!dir) return nullptr;
        return std::make_unique<harness::CsvAppender>((std::filesystem::path(dir) / "gpu_correctness.csv").string(),
                                                      std::vector<std::string>{"variant", "n", "checked_elements",
                                                                               "max_error_ratio", "failed", "pass"});
    }();
    return file.get();
}

}  // namespace ryoo::testing_support
