#include "mwsep/geometry/gauss_legendre.hpp"

#include <cmath>
#include <stdexcept>

#include "mwsep/math/constants.hpp"

namespace mwsep::geometry {

GaussLegendre gauss_legendre(int n) {
    if (n < 1) throw std::invalid_argument("gauss_legendre: n must be at least 1");
    GaussLegendre rule{std::vector<double>(n), std::vector<double>(n)};
    const int half = (n + 1) / 2;
    for (int m = 1; m <= half; ++m) {
        double z = std::cos(constants::pi * (m - 0.25) / (n + 0.5));
        double derivative = 0;
        double previous = 0;
        // Newton iteration on P_n; the tolerance and the update order are those of the original scheme.
        do {
            double p_curr = 1.0;
            double p_prev = 0.0;
            for (int j = 1; j <= n; ++j) {
                const double p_older = p_prev;
                p_prev = p_curr;
                p_curr = ((2.0 * j - 1.0) * z * p_prev - (j - 1.0) * p_older) / j;
            }
            derivative = n * (z * p_curr - p_prev) / (z * z - 1.0);
            previous = z;
            z = previous - p_curr / derivative;
        } while (std::fabs(z - previous) > 3.0e-11);
        rule.nodes[m - 1] = -z;
        rule.nodes[n - m] = z;
        const double w = 2.0 / ((1.0 - z * z) * derivative * derivative);
        rule.weights[m - 1] = w;
        rule.weights[n - m] = w;
    }
    return rule;
}

}  // namespace mwsep::geometry
