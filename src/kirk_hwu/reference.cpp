#include "kirk_hwu/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "harness/threads.hpp"

namespace kirk_hwu {

template <class Real>
void mri_cpu_scatter(const MriInput& in, MriOutput out, std::vector<Real>& sum_r, std::vector<Real>& sum_i) {
    const std::size_t n_voxels = in.voxels();
    sum_r.assign(n_voxels, Real(0));
    sum_i.assign(n_voxels, Real(0));
    for (std::size_t m = 0; m < in.samples(); ++m) {
        const Real pr = in.phi_r[m], pi = in.phi_i[m];
        const Real wr = out == MriOutput::q ? phi_magnitude(pr, pi) : mu_real<Real>(pr, pi, in.d_r[m], in.d_i[m]);
        const Real wi = out == MriOutput::q ? Real(0) : mu_imag<Real>(pr, pi, in.d_r[m], in.d_i[m]);
        const Real kx = in.kx[m], ky = in.ky[m], kz = in.kz[m];
        for (std::size_t n = 0; n < n_voxels; ++n) {
            const Real e = mri_phase<Real>(kx, ky, kz, in.x[n], in.y[n], in.z[n]);
            const Real c = std::cos(e), s = std::sin(e);
            if (out == MriOutput::q) mri_accumulate<MriOutput::q>(sum_r[n], sum_i[n], wr, wi, c, s);
            else mri_accumulate<MriOutput::fhd>(sum_r[n], sum_i[n], wr, wi, c, s);
        }
    }
}
template void mri_cpu_scatter<float>(const MriInput&, MriOutput, std::vector<float>&, std::vector<float>&);
template void mri_cpu_scatter<double>(const MriInput&, MriOutput, std::vector<double>&, std::vector<double>&);

// Runs body(i) for i in [0, count) over @p threads threads; a thread the system refuses to start leaves the
// work to those that started (each index computes one voxel alone, so the result is the same).
template <class Body>
static void parallel_for(std::size_t count, int threads, const Body& body) {
    harness::parallel_for(count, threads, body, "kirk_hwu");
}

std::vector<double> mri_reference(const MriInput& in, MriOutput out, const std::vector<std::size_t>& voxels,
                                  int threads) {
    const std::size_t count = voxels.size();
    std::vector<double> result(2 * count);
    // The weights once, in double from the float inputs.
    std::vector<double> wr(in.samples()), wi(in.samples());
    for (std::size_t m = 0; m < in.samples(); ++m) {
        const double pr = in.phi_r[m], pi = in.phi_i[m];
        wr[m] = out == MriOutput::q ? phi_magnitude(pr, pi) : mu_real<double>(pr, pi, in.d_r[m], in.d_i[m]);
        wi[m] = out == MriOutput::q ? 0.0 : mu_imag<double>(pr, pi, in.d_r[m], in.d_i[m]);
    }
    for (std::size_t n : voxels)
        if (n >= in.voxels()) throw std::out_of_range("mri_reference: voxel index beyond the grid");
    parallel_for(count, threads, [&](std::size_t j) {
        const std::size_t n = voxels[j];
        double r = 0, i = 0;
        for (std::size_t m = 0; m < in.samples(); ++m) {
            const double e = mri_phase<double>(in.kx[m], in.ky[m], in.kz[m], in.x[n], in.y[n], in.z[n]);
            if (out == MriOutput::q) mri_accumulate<MriOutput::q>(r, i, wr[m], wi[m], std::cos(e), std::sin(e));
            else mri_accumulate<MriOutput::fhd>(r, i, wr[m], wi[m], std::cos(e), std::sin(e));
        }
        result[j] = r;
        result[count + j] = i;
    });
    return result;
}

template <class Real>
void coulomb_cpu(const CoulombInput& in, std::vector<Real>& grid) {
    grid.assign(in.points(), Real(0));
    const std::size_t atoms = in.atom_count();
    for (int k = 0; k < in.gz; ++k) {
        const Real z = lattice_coordinate(k, in.spacing);
        for (int j = 0; j < in.gy; ++j) {
            const Real y = lattice_coordinate(j, in.spacing);
            for (int i = 0; i < in.gx; ++i) {
                const Real x = lattice_coordinate(i, in.spacing);
                Real energy = 0;
                for (std::size_t a = 0; a < atoms; ++a) {
                    const Real dx = x - in.atoms[4 * a], dy = y - in.atoms[4 * a + 1], dz = z - in.atoms[4 * a + 2];
                    energy += in.atoms[4 * a + 3] / std::sqrt(squared_distance(dx, row_distance(dy, dz * dz)));
                }
                grid[static_cast<std::size_t>(in.gx) * in.gy * k + static_cast<std::size_t>(in.gx) * j + i] = energy;
            }
        }
    }
}
template void coulomb_cpu<float>(const CoulombInput&, std::vector<float>&);
template void coulomb_cpu<double>(const CoulombInput&, std::vector<double>&);

std::vector<double> coulomb_reference(const CoulombInput& in, const std::vector<std::size_t>& points, int threads) {
    std::vector<double> result(points.size());
    const std::size_t atoms = in.atom_count();
    const std::size_t plane = static_cast<std::size_t>(in.gx) * in.gy;
    for (std::size_t idx : points)
        if (idx >= in.points()) throw std::out_of_range("coulomb_reference: point index beyond the lattice");
    parallel_for(points.size(), threads, [&](std::size_t p) {
        const std::size_t idx = points[p];
        const double x = lattice_coordinate(static_cast<int>(idx % in.gx), in.spacing);
        const double y = lattice_coordinate(static_cast<int>(idx / in.gx % in.gy), in.spacing);
        const double z = lattice_coordinate(static_cast<int>(idx / plane), in.spacing);
        double energy = 0;
        for (std::size_t a = 0; a < atoms; ++a) {
            const double dx = x - in.atoms[4 * a], dy = y - in.atoms[4 * a + 1], dz = z - in.atoms[4 * a + 2];
            energy += in.atoms[4 * a + 3] / std::sqrt(squared_distance(dx, row_distance(dy, dz * dz)));
        }
        result[p] = energy;
    });
    return result;
}

std::vector<std::size_t> spread_subset(std::size_t total, std::size_t count) {
    std::vector<std::size_t> out;
    if (count >= total) {
        for (std::size_t i = 0; i < total; ++i) out.push_back(i);
        return out;
    }
    const std::size_t stride = total / count;
    // The offset inside each stride walks by a prime, so successive picks land in different rows.
    for (std::size_t s = 0; s < count; ++s) out.push_back(s * stride + (s * 7919) % stride);
    return out;
}

ErrorStats compare(const std::vector<double>& ref, const std::vector<double>& out) {
    if (ref.size() != out.size() || ref.empty())
        throw std::invalid_argument("compare: the result and its reference differ in length or are empty");
    ErrorStats e;
    double ref_max = 0, diff2 = 0, ref2 = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = std::fabs(out[i] - ref[i]);
        e.max_abs = std::max(e.max_abs, std::isnan(d) ? INFINITY : d);
        ref_max = std::max(ref_max, std::fabs(ref[i]));
        diff2 += d * d;
        ref2 += ref[i] * ref[i];
    }
    e.max_rel = ref_max > 0 ? e.max_abs / ref_max : e.max_abs;
    e.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    if (std::isnan(e.rel_l2)) e.rel_l2 = INFINITY;
    return e;
}

}  // namespace kirk_hwu
