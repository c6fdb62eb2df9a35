/// @file compressed_rule.hpp
/// @brief The compressed line-of-sight quadrature: Gauss rules of an area's fixed discrete (r, w) measure.
///
/// Every cell's line-of-sight integral of an area is ids_j * sum_m w_m f(r_m; cell) over the same points
/// (r_m, w_m) of the folded line of sight (geometry::FoldedLineOfSight): the weights fold the convolution
/// weights, the efficiency and the bin volume irv together, none of which depends on the sky cell or on the
/// model's parameters (only ids_j does, and it is a per-cell factor outside the sum). That discrete,
/// positive measure is therefore shared by every cell of the area and every evaluation of a fit.
///
/// Its n-point Gauss rule in x = ln r has nodes inside the measure's support and positive weights, and it
/// integrates every polynomial in x of degree <= 2n - 1 exactly. For a smooth integrand its error is at most
/// 2 (sum w) times the best approximation error of degree 2n - 1, so a few dozen nodes replace the 84,000
/// points of a large unit. This is a different algorithm from the exact sum: its error is estimated per cell
/// and component and controlled (cpu::integrate_compressed), never assumed.
///
/// Construction (build_ladder, milliseconds on one core for the large grids): the measure is reduced
/// block by block to a few thousand points with the same polynomial moments up to the top rule's degree (to
/// a few 1e-17 of the mass); the Stieltjes recurrence on those, in double-double, gives the recurrence
/// coefficients of the orthonormal polynomials; each rule's nodes are the zeros of one of them, found by
/// Newton's method on the recurrence and checked by Sturm counts, refined and weighted (Christoffel numbers)
/// in double-double. build_ladder_reference is the earlier construction (the recurrence on every point in
/// long double, the Golub-Welsch eigenproblem by implicit QL): the fallback, and a second construction for
/// the tests. Tests check both against direct long-double sums of the measure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mwsep/geometry/tables.hpp"

namespace mwsep::cpu {

/// One Gauss rule of a discrete measure, nodes ascending.
struct GaussRuleLd {
    std::vector<long double> x;       ///< nodes in the measure's variable
    std::vector<long double> weight;  ///< positive weights, summing to the measure's mass
};

/// The recurrence coefficients of the orthonormal polynomials of the discrete measure (x_m, w_m), m < N, up
/// to degree @p n (alpha_0..alpha_{n-1}, beta_1..beta_{n-1}, and the mass); requires n <= N and positive
/// weights. The variable is shifted and scaled to [-1, 1] internally; the coefficients are returned in it
/// with @p centre and @p half_width describing the map x = centre + half_width t.
struct Recurrence {
    std::vector<long double> alpha;  ///< diagonal of the Jacobi matrix (in t)
    std::vector<long double> beta;   ///< off-diagonal: beta[k] couples k and k + 1
    long double mass = 0;            ///< sum of the weights
    long double centre = 0;          ///< x = centre + half_width t
    long double half_width = 1;      ///< see centre
};
/// The first @p n recurrence coefficients of the measure (x, w). Throws std::invalid_argument for n < 1,
/// n > number of points, a non-positive or non-finite weight, or a non-finite node.
Recurrence discrete_recurrence(const std::vector<long double>& x, const std::vector<long double>& w, int n);

/// The @p n-point Gauss rule from the first n coefficients of @p rec (Golub-Welsch), in the measure's
/// variable x, nodes ascending. Throws std::invalid_argument if n exceeds the recurrence's length and
/// std::runtime_error if the eigenvalue iteration does not converge.
GaussRuleLd gauss_rule(const Recurrence& rec, int n);

/// The ladder of rules of one area's line of sight, in x = ln r, ready for the integrators.
struct CompressedLadder {
    std::vector<int> size;                       ///< nodes of each level (ladder_sizes)
    std::vector<std::vector<double>> r;          ///< per level: node distances exp(x) [kpc], ascending
    std::vector<std::vector<double>> weight;     ///< per level: the rule's weights
    std::vector<std::vector<double>> x;          ///< per level: the nodes ln r (for the resolution test)
    std::vector<GaussRuleLd> rule;               ///< per level: the rule in long double (tests, provenance)
    double x_min = 0;                            ///< ln of the smallest point of the measure
    double x_max = 0;                            ///< ln of the largest point of the measure
    double build_seconds = 0;                    ///< wall clock of the construction
    std::string construction;                    ///< "fast", "reference", or why the reference was used
    int reduced_points = 0;                      ///< points of the reduced measure (fast construction)
    int ql_starts = 0;                           ///< levels whose Newton iteration started from QL eigenvalues
    double reduce_seconds = 0;                   ///< fast construction: reducing the measure
    double recurrence_seconds = 0;               ///< fast construction: the double-double Stieltjes recurrence
    double rules_seconds = 0;                    ///< fast construction: every level's nodes and weights
    std::string stopped;                         ///< why the ladder ends below the largest candidate size, if it does
    int levels() const { return static_cast<int>(size.size()); }  ///< number of levels
};

/// Node counts of the ladder's levels: doubling at first, then in steps of 3/2 and 4/3, so that near the
/// top a level's error (which the next level's comparison estimates) is already small. The levels above 512
/// serve the narrow streams, which otherwise fall back to the exact sum; build_ladder leaves out a level
/// with more than a quarter of the measure's points, and the first level whose nodes are not all distinct
/// once stored in double (as ln r and as r), with every level above it.
inline constexpr int ladder_sizes[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
/// The smallest level.
inline constexpr int ladder_smallest = ladder_sizes[0];

/// Builds the ladder of @p los (the levels of ladder_sizes with at most a quarter of the points each, up to
/// the first whose nodes are not all distinct in double) by the fast construction; if that fails its own
/// checks below the second level, by build_ladder_reference (CompressedLadder::construction says which).
/// Throws std::invalid_argument for a measure of too few points or a distance or weight that is not
/// positive and finite.
CompressedLadder build_ladder(const geometry::FoldedLineOfSight& los);

/// The same ladder by the long-double construction (discrete_recurrence on every point, gauss_rule per
/// level): slow (seconds on the large grids), kept as the fallback and as a second construction for tests.
CompressedLadder build_ladder_reference(const geometry::FoldedLineOfSight& los);

/// The first @p n recurrence coefficients of the measure of @p los in t (the Recurrence's centre and
/// half_width map it to ln r) as the fast construction computes them (reduced measure, double-double
/// Stieltjes), rounded to long double: for tests against discrete_recurrence.
Recurrence fast_recurrence(const geometry::FoldedLineOfSight& los, int n);

/// The ladder of @p los from a process-wide cache keyed by the bits of the measure, built on first use
/// (a fit builds it once per grid). Thread-safe.
std::shared_ptr<const CompressedLadder> cached_ladder(const geometry::FoldedLineOfSight& los);

}  // namespace mwsep::cpu
