/// @file progress.hpp
/// @brief Progress callback that long computations call; the command-line tool draws it.
#pragma once

#include <cstddef>
#include <functional>

namespace mwsep::model {

/// Called with the amount of work done so far and the total; may be empty. Must be thread-safe.
using ProgressFn = std::function<void(std::size_t done, std::size_t total)>;

}  // namespace mwsep::model
