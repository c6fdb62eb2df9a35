/// @file fit_command.hpp
/// @brief `mwsep fit`: fits a work unit's optimised parameters to a star catalogue.
#pragma once

#include "mwsep/app/commands.hpp"

namespace mwsep::app {

/// Runs `mwsep fit` with @p args (after the subcommand name); returns the exit status.
int command_fit(const Args& args);

}  // namespace mwsep::app
