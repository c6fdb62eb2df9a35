#include "ryoo/cpu/tpacf.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "ryoo/tpacf_math.hpp"

namespace ryoo {
namespace {

/// splitmix64 (the same every platform), as doubles uniform in [0, 1).
class Uniform {
public:
    explicit Uniform(std::uint64_t seed) : state_(seed) {}
    double next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1p-53;
    }

private:
    std::uint64_t state_;
};

struct Vec {
    double x, y, z;
};

Vec uniform_on_sphere(Uniform& g) {
    const double z = 2 * g.next() - 1, phi = 2 * std::numbers::pi * g.next();
    const double r = std::sqrt(std::max(0.0, 1 - z * z));
    return {r * std::cos(phi), r * std::sin(phi), z};
}

void store(std::vector<float>& out, Vec v) {
    const double norm = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    out.push_back(static_cast<float>(v.x / norm));
    out.push_back(static_cast<float>(v.y / norm));
    out.push_back(static_cast<float>(v.z / norm));
}

}  // namespace

TpacfInput synthetic_sky(int points, int random_sets, int bins, std::uint64_t seed) {
    if (points < 2 || random_sets < 1 || bins < 1 || bins > tpacf_max_slots - 2)
        throw std::invalid_argument("TPACF input: " + std::to_string(points) + " points, " + std::to_string(random_sets) +
                                    " random sets, " + std::to_string(bins) + " bins; expected at least 2 points, 1 set "
                                    "and 1 to " + std::to_string(tpacf_max_slots - 2) + " bins");
    TpacfInput in;
    in.points = points;
    in.random_sets = random_sets;
    Uniform g(seed);
    std::vector<Vec> centres;
    for (int c = 0; c < 64; ++c) centres.push_back(uniform_on_sphere(g));
    in.data.reserve(3 * static_cast<std::size_t>(points));
    for (int i = 0; i < points; ++i) {
        if (i % 2 == 0) {
            store(in.data, uniform_on_sphere(g));
        } else {
            // A point within about a degree of a cluster centre: the centre plus a small random offset.
            const Vec c = centres[static_cast<std::size_t>(g.next() * 64) % 64];
            const double spread = 0.02;
            store(in.data, {c.x + spread * (2 * g.next() - 1), c.y + spread * (2 * g.next() - 1), c.z + spread * (2 * g.next() - 1)});
        }
    }
    in.random.reserve(3 * static_cast<std::size_t>(points) * random_sets);
    for (int i = 0; i < points * random_sets; ++i) store(in.random, uniform_on_sphere(g));
    for (int e = 0; e <= bins; ++e) {
        const double arcmin = std::pow(10.0, 4.0 * e / bins);  // 1 .. 10^4 arcmin
        in.edge_arcmin.push_back(arcmin);
        in.edge_cosines.push_back(static_cast<float>(std::cos(arcmin / 60.0 * std::numbers::pi / 180.0)));
    }
    return in;
}

void tpacf_pairs_cpu(const float* a, int na, const float* b, int nb, bool self, const std::vector<float>& edges,
                     std::uint64_t* histogram) {
    const int ne = static_cast<int>(edges.size());
    for (int i = 0; i < na; ++i) {
        const float ax = a[3 * i], ay = a[3 * i + 1], az = a[3 * i + 2];
        for (int j = self ? i + 1 : 0; j < nb; ++j) {
            const float d = tpacf_dot(ax, ay, az, b[3 * j], b[3 * j + 1], b[3 * j + 2]);
            ++histogram[tpacf_slot(d, edges.data(), ne)];
        }
    }
}

TpacfHistograms empty_histograms(const TpacfInput& in) {
    TpacfHistograms h;
    h.slots = in.slots();
    h.dd.assign(h.slots, 0);
    h.dr.assign(static_cast<std::size_t>(h.slots) * in.random_sets, 0);
    h.rr.assign(static_cast<std::size_t>(h.slots) * in.random_sets, 0);
    return h;
}

TpacfHistograms tpacf_cpu(const TpacfInput& in) {
    TpacfHistograms h = empty_histograms(in);
    tpacf_pairs_cpu(in.data.data(), in.points, in.data.data(), in.points, true, in.edge_cosines, h.dd.data());
    for (int s = 0; s < in.random_sets; ++s) {
        tpacf_pairs_cpu(in.data.data(), in.points, in.random_set(s), in.points, false, in.edge_cosines, &h.dr[s * h.slots]);
        tpacf_pairs_cpu(in.random_set(s), in.points, in.random_set(s), in.points, true, in.edge_cosines, &h.rr[s * h.slots]);
    }
    return h;
}

std::vector<double> landy_szalay(const TpacfHistograms& h, int points, int random_sets) {
    const double self_pairs = 0.5 * points * (points - 1.0), cross_pairs = static_cast<double>(points) * points;
    std::vector<double> w(h.slots);
    for (int k = 0; k < h.slots; ++k) {
        double dr = 0, rr = 0;
        for (int s = 0; s < random_sets; ++s) {
            dr += static_cast<double>(h.dr[s * h.slots + k]);
            rr += static_cast<double>(h.rr[s * h.slots + k]);
        }
        const double dd_n = h.dd[k] / self_pairs, dr_n = dr / (cross_pairs * random_sets), rr_n = rr / (self_pairs * random_sets);
        w[k] = rr > 0 ? (dd_n - 2 * dr_n + rr_n) / rr_n : std::nan("");
    }
    return w;
}

}  // namespace ryoo
