#include "kirk_hwu/tuned.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace kirk_hwu::tuned {

namespace {

/// Voxels (MRI) per block: positions and sums of a block, 5 floats each, stay in a 32 KB L1 data cache.
constexpr std::size_t mri_block = 512;

// [tuned-mri-begin]
/// The tuned MRI loop for output @p Out (see tuned.hpp).
template <MriOutput Out>
void mri_blocks(const MriInput& in, std::vector<float>& sum_r, std::vector<float>& sum_i) {
    const std::size_t voxels = in.voxels(), samples = in.samples();
    // Per sample, once: 2π·k and the weights, as separate arrays streamed past every block.
    std::vector<float> kx(samples), ky(samples), kz(samples), wr(samples), wi(samples);
    for (std::size_t m = 0; m < samples; ++m) {
        kx[m] = two_pi<float> * in.kx[m], ky[m] = two_pi<float> * in.ky[m], kz[m] = two_pi<float> * in.kz[m];
        const float pr = in.phi_r[m], pi = in.phi_i[m];
        wr[m] = Out == MriOutput::q ? phi_magnitude(pr, pi) : mu_real<float>(pr, pi, in.d_r[m], in.d_i[m]);
        wi[m] = Out == MriOutput::q ? 0.0f : mu_imag<float>(pr, pi, in.d_r[m], in.d_i[m]);
    }
    sum_r.assign(voxels, 0.0f);
    sum_i.assign(voxels, 0.0f);
    alignas(64) float px[mri_block], py[mri_block], pz[mri_block], ar[mri_block], ai[mri_block];
    for (std::size_t first = 0; first < voxels; first += mri_block) {
        const std::size_t count = std::min(mri_block, voxels - first);
        for (std::size_t n = 0; n < count; ++n) {
            px[n] = in.x[first + n], py[n] = in.y[first + n], pz[n] = in.z[first + n];
            ar[n] = 0.0f, ai[n] = 0.0f;
        }
        for (std::size_t m = 0; m < samples; ++m) {
            const float kxm = kx[m], kym = ky[m], kzm = kz[m], wrm = wr[m], wim = wi[m];
#pragma omp simd
            for (std::size_t n = 0; n < count; ++n) {
                float s, c;
                sincos_fast(kxm * px[n] + kym * py[n] + kzm * pz[n], s, c);
                mri_accumulate<Out>(ar[n], ai[n], wrm, wim, c, s);
            }
        }
        std::copy(ar, ar + count, sum_r.begin() + static_cast<std::ptrdiff_t>(first));
        std::copy(ai, ai + count, sum_i.begin() + static_cast<std::ptrdiff_t>(first));
    }
}
// [tuned-mri-end]

}  // namespace

void mri(const MriInput& in, MriOutput out, std::vector<float>& sum_r, std::vector<float>& sum_i) {
    if (out == MriOutput::q) mri_blocks<MriOutput::q>(in, sum_r, sum_i);
    else mri_blocks<MriOutput::fhd>(in, sum_r, sum_i);
}

// [tuned-coulomb-begin]
void coulomb(const CoulombInput& in, std::vector<float>& grid) {
    const std::size_t atoms = in.atom_count(), gx = static_cast<std::size_t>(in.gx);
    grid.assign(in.points(), 0.0f);
    std::vector<float> x(gx), ax(atoms), ay(atoms), q(atoms), dz2(atoms);
    for (std::size_t i = 0; i < gx; ++i) x[i] = lattice_coordinate(static_cast<int>(i), in.spacing);
    for (std::size_t a = 0; a < atoms; ++a) ax[a] = in.atoms[4 * a], ay[a] = in.atoms[4 * a + 1], q[a] = in.atoms[4 * a + 3];
    for (int k = 0; k < in.gz; ++k) {
        const float z = lattice_coordinate(k, in.spacing);
        for (std::size_t a = 0; a < atoms; ++a) {
            const float dz = z - in.atoms[4 * a + 2];
            dz2[a] = dz * dz;
        }
        for (int j = 0; j < in.gy; ++j) {
            const float y = lattice_coordinate(j, in.spacing);
            float* row = grid.data() + gx * (static_cast<std::size_t>(in.gy) * k + j);
            for (std::size_t a = 0; a < atoms; ++a) {
                const float dy = y - ay[a];
                const float shared = row_distance(dy, dz2[a]), xa = ax[a], qa = q[a];
#pragma omp simd
                for (std::size_t i = 0; i < gx; ++i) {
                    const float dx = x[i] - xa;
                    row[i] += qa / std::sqrt(squared_distance(dx, shared));
                }
            }
        }
    }
}
// [tuned-coulomb-end]

}  // namespace kirk_hwu::tuned
