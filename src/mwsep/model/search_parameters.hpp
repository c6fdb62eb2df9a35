/// @file search_parameters.hpp
/// @brief The search parameter vector (spec 1.2): the 2009 file, the command-line form, and how it
/// overwrites the optimized parameters of a work unit.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "mwsep/model/work_unit.hpp"

namespace mwsep::model {

/// Parses `search_parameters.txt`: a name, `parameters [M]: v1 ... vM`, and optional metadata.
SearchVector parse_search_parameters(std::istream& in, const std::string& source);
/// Opens and parses @p path.
SearchVector read_search_parameters(const std::string& path);

/// Builds the vector from the command-line form `--np N -p v1 ... vN`; @p tokens are the values.
SearchVector search_vector_from_arguments(int declared_count, const std::vector<std::string>& tokens);

/// Number of parameters a search vector must carry for @p ap: the number of set optimize flags.
int optimized_parameter_count(const AstronomyParameters& ap);

/// The name under which AstronomyParameters::from_vector records value @p index of @p key (block @p repeat).
std::string vector_slot(const std::string& key, int repeat, int index);

/// Overwrites the optimized parameters of @p ap with @p v in the "set" order of spec 1.2, and records in
/// ap.from_vector which values came from @p v.
/// Throws InputError if the vector's length differs from the number of set flags.
void apply_search_vector(AstronomyParameters& ap, const SearchVector& v);

}  // namespace mwsep::model
