/// @file fit_command.hpp
/// @brief `mwsep fit`: fits a work unit's optimised parameters to a star catalogue.
#pragma once

#include "mwsep/app/commands.hpp"

namespace mwsep::app {

/// Runs `mwsep fit` with @p args (after the subcommand name); returns the exit status.
int command_fit(const Args& args);

/// Empty in a build with the fit; otherwise why this build has none (harness::Subcommand::unavailable).
std::string fit_unavailable();

}  // namespace mwsep::app
