/// @file compressed_rule_detail.hpp
/// @brief What the two constructions of the compressed quadrature's Gauss rules share (internal):
/// compressed_rule.cpp (the public functions, the long-double construction, the guard) and
/// compressed_rule_fast.cpp (the fast construction, compiled for vector instructions; see CMakeLists.txt).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mwsep/cpu/compressed_rule.hpp"
#include "mwsep/geometry/tables.hpp"

namespace mwsep::cpu::detail {

/// The affine map x = centre + half t between the measure's variable x = ln r and t in [-1, 1].
struct Frame {
    long double lo = 0;      ///< ln of the smallest distance
    long double hi = 0;      ///< ln of the largest distance
    long double centre = 0;  ///< x at t = 0
    long double half = 1;    ///< dx/dt
    long double t_of(long double x) const { return (x - centre) / half; }  ///< t of x
};

/// The frame of @p los's measure; throws std::invalid_argument for a distance or weight that is not
/// positive and finite, or for distances and weights that differ in number.
Frame frame_of(const geometry::FoldedLineOfSight& los);

/// The levels of ladder_sizes with at most a quarter of @p points points each; throws
/// std::invalid_argument if fewer than two.
std::vector<int> candidate_sizes(std::size_t points);

/// Appends to @p ladder the level of @p rule (x = ln r ascending, weights) if its nodes, stored in double
/// as the integrators use them (x and r = exp x), are strictly increasing, lie inside the measure (to
/// rounding, then put on its end points) and its weights are positive. Returns false (and appends nothing,
/// @p why saying why) otherwise: the ladder ends below this level.
bool append_level(CompressedLadder& ladder, int n, GaussRuleLd rule, long double lo, long double hi, std::string& why);

/// Whether the fast construction's instructions run on this processor (compressed_rule.cpp).
bool fast_construction_runs_here();

/// cpu::fast_recurrence's work (compressed_rule_fast.cpp), once fast_construction_runs_here() said yes.
Recurrence fast_recurrence(const geometry::FoldedLineOfSight& los, int n);

/// The fast construction (compressed_rule_fast.cpp) into @p ladder: true if it gave two levels or more;
/// otherwise false, with ladder.stopped saying why.
bool build_ladder_fast(const geometry::FoldedLineOfSight& los, CompressedLadder& ladder);

}  // namespace mwsep::cpu::detail
