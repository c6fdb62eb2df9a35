/// @file astronomy_parameters.hpp
/// @brief Reader and writer of `astronomy_parameters.txt` (spec 1.1), strict about order, counts and numbers.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "mwsep/model/work_unit.hpp"

namespace mwsep::model {

/// Parses the file format of spec 1.1. Accepts the optional `parameters_version` first line and the
/// optional `aux_bg_profile` line. Throws InputError naming file, line and key on any malformed input.
/// Only the syntax and the counts are checked here; build_model() checks the values.
AstronomyParameters parse_astronomy_parameters(std::istream& in, const std::string& source);

/// Opens and parses @p path.
AstronomyParameters read_astronomy_parameters(const std::string& path);

/// Writes @p ap in the 2009 format (with `aux_bg_profile` and `parameters_version` when they are set),
/// every number in its shortest round-trip form so that reading it back gives the same values.
void write_astronomy_parameters(std::ostream& out, const AstronomyParameters& ap);

}  // namespace mwsep::model
