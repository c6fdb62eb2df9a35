/// @file stars.hpp
/// @brief Reader and writer of star catalogues `stars.txt` (spec 1.3): a count, then `l b r` per line.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "mwsep/model/work_unit.hpp"

namespace mwsep::model {

/// Parses a catalogue strictly: the count must be positive and equal the number of star lines, each line
/// has exactly three finite numbers, and r > 0. Throws InputError with the line number otherwise.
StarCatalogue parse_stars(std::istream& in, const std::string& source);
/// Opens and parses the catalogue at @p path.
StarCatalogue read_stars(const std::string& path);

/// Writes @p stars with 9 decimals (well below the catalogue's own precision of 6).
void write_stars(std::ostream& out, const StarCatalogue& stars);

}  // namespace mwsep::model
