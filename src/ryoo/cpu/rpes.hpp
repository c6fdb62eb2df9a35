/// @file rpes.hpp
/// @brief RPES on one CPU thread: a synthetic molecule of s-type primitive Gaussians, its primitive pairs,
/// the fit table of the one-root Rys weight, the Coulomb contraction J_ab = sum_cd (ab|cd) D_cd of a
/// positive pair density in double precision (the Boys function through erf) and in single precision (the
/// fit, as the GPU evaluates it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ryoo {

/// One s-type primitive Gaussian: its centre and exponent (bohr, bohr^-2).
struct RpesPrimitive {
    double x = 0;      ///< centre, x
    double y = 0;      ///< centre, y
    double z = 0;      ///< centre, z
    double alpha = 1;            ///< exponent
};

/// A molecule of @p edge^3 atoms on a cubic lattice of @p spacing bohr centred at the origin, each with
/// @p per_atom primitives of exponents 0.1 x 3^k (k = 0 .. per_atom - 1). Throws std::invalid_argument for
/// edge outside 1..16, per_atom outside 1..12 or a spacing not positive.
std::vector<RpesPrimitive> rpes_molecule(int edge, int per_atom, double spacing);

/// The primitive pairs a <= b of a molecule, each with its centre P, exponent p, factor k (rpes_math.hpp)
/// and the density D of the pair (uniform in (0.5, 1] from the seed), in double precision.
struct RpesPairs {
    std::vector<double> px;          ///< centres P, x
    std::vector<double> py;          ///< centres P, y
    std::vector<double> pz;          ///< centres P, z
    std::vector<double> p;           ///< exponents alpha + beta
    std::vector<double> k;           ///< factors k_ab
    std::vector<double> density;     ///< D_ab
    /// Pairs.
    int size() const { return static_cast<int>(p.size()); }
};

/// Every pair a <= b of @p molecule with densities from @p seed.
RpesPairs rpes_pairs(const std::vector<RpesPrimitive>& molecule, std::uint64_t seed);

/// The pairs rounded to single precision as the GPU reads them: geometry (Px, Py, Pz, p) 4 floats per
/// pair, the bra factor k_ab and the ket factor k_cd D_cd.
struct RpesPacked {
    std::vector<float> geometry;  ///< 4 floats per pair
    std::vector<float> k;         ///< k_ab
    std::vector<float> kd;        ///< k_cd D_cd
};

/// @p pairs in single precision.
RpesPacked rpes_pack(const RpesPairs& pairs);

/// F0(@p t) in double precision: sqrt(pi / (4 t)) erf(sqrt t), and its series 1 - t/3 + t^2/10 below 1e-6.
double boys_f0(double t);

/// The fit table of the one-root Rys weight (rpes_table_size floats): on each unit interval the polynomial
/// of degree rpes_degree in x = T - k interpolating F0 at the Chebyshev nodes, coefficients rounded to
/// float.
std::vector<float> rpes_fit_table();

/// The relative error the fit table (evaluated in single precision) is held to against boys_f0 over
/// [0, 64] (checked by the tests).
inline constexpr double rpes_fit_bound = 1e-6;

/// The error a J row is held to against the double-precision reference (stated bound), relative to the row,
/// or to rpes_row_floor of the largest row for the rows below that.
inline constexpr double rpes_row_bound = 1e-4;
/// Rows smaller than this share of the largest row are judged against it instead of against themselves: pairs
/// of tight primitives on distant atoms have factors below single precision's range (they underflow to zero or
/// to subnormals), which a single-precision code cannot hold to a relative bound and which contribute nothing
/// at the precision of the largest rows.
inline constexpr double rpes_row_floor = 1e-6;

/// The largest |x_i - ref_i| / max(ref_i, rpes_row_floor max_j ref_j) over the rows (J is a sum of positive
/// terms, so ref_i bounds the sum of their magnitudes); infinity for a non-finite x_i.
template <class T>
double rpes_row_error(const std::vector<T>& x, const std::vector<double>& ref) {
    double largest = 0;
    for (double r : ref) largest = std::max(largest, std::abs(r));
    const double floor = rpes_row_floor * largest;
    double worst = 0;
    for (std::size_t i = 0; i < ref.size() && i < x.size(); ++i) {
        const double e = std::abs(static_cast<double>(x[i]) - ref[i]) / std::max(std::abs(ref[i]), floor);
        worst = std::isfinite(e) ? std::max(worst, e) : INFINITY;
    }
    return worst;
}

/// (ab|cd) of four primitives in double precision, from the formula directly (no pairs).
double rpes_integral(const RpesPrimitive& a, const RpesPrimitive& b, const RpesPrimitive& c, const RpesPrimitive& d);

/// J_r = sum over every pair cd of (r|cd) D_cd for each bra pair r of @p rows, in double precision.
std::vector<double> rpes_rows_fp64(const RpesPairs& pairs, const std::vector<int>& rows);

/// Kets summed in one single-precision accumulator before the partial sums are added (the GPU's chunk).
inline constexpr int rpes_chunk = 4096;

/// J_r for each bra pair r of @p rows in single precision with the fit table @p table (the paper's CPU
/// baseline, single precision): each chunk of rpes_chunk kets summed in float, the chunk sums added in float.
std::vector<float> rpes_rows_cpu(const RpesPacked& packed, const std::vector<float>& table, const std::vector<int>& rows);

}  // namespace ryoo
