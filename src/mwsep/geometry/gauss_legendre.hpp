/// @file gauss_legendre.hpp
/// @brief Gauss-Legendre nodes and weights on [-1, 1] by the classical Newton scheme of the original code.
#pragma once

#include <vector>

namespace mwsep::geometry {

/// Nodes in ascending order and their weights.
struct GaussLegendre {
    std::vector<double> nodes;    ///< x_k, ascending (x_0 is the one nearest -1)
    std::vector<double> weights;  ///< w_k of each node (they sum to 2 only to about 1e-11; see gauss_legendre())
};

/// Computes the n-point rule exactly as the 2009 code did (spec 2.6), including its quirk: each weight
/// uses the derivative from the last iterate before the final Newton update. The weights therefore sum
/// to 2 only to about 1e-11 for n = 120; reproducing that keeps our integrals equal to the original's.
GaussLegendre gauss_legendre(int n);

}  // namespace mwsep::geometry
