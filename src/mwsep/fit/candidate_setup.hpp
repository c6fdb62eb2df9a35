/// @file candidate_setup.hpp
/// @brief A candidate's integration setup made by changing the parameters of an existing one: the
/// geometry of a work unit (areas, r binning, convolution rule, wedge) does not depend on the parameters a
/// fit varies, so its tables are built once per fit instead of once per candidate.
#pragma once

#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::fit {

/// Whether @p a and @p b share every input of the setup's tables: wedge, convolution points, r binning
/// and every area's bounds and steps.
bool same_geometry(const model::Model& a, const model::Model& b);

/// Sets the parameter-dependent parts of @p setup (the model, the streams' geometry, 1/q^2, the
/// Hernquist flag) to those of @p model, leaving its tables as they are; the result equals
/// geometry::make_setup(@p model). Throws std::invalid_argument unless same_geometry(setup.model, model).
void set_parameters(geometry::IntegrationSetup& setup, const model::Model& model);

}  // namespace mwsep::fit
