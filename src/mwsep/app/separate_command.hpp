/// @file separate_command.hpp
/// @brief `mwsep separate`: each star's probability of belonging to the background and to each stream.
#pragma once

#include "mwsep/app/commands.hpp"

namespace mwsep::app {

/// Runs `mwsep separate` with @p args (after the subcommand name); returns the exit status.
int command_separate(const Args& args);

}  // namespace mwsep::app
