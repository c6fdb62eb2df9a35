/// @file inputs.hpp
/// @brief The synthetic, deterministic inputs of both computations at four sizes (tiny for the tests, small
/// for the single-core CPU baselines, medium for the slow GPU variants, full at the documents' sizes for the
/// GPU timings). Every value comes from a SplitMix64 stream with a fixed seed, turned into a double by its
/// top 53 bits, so the inputs are the same on every machine and can be rebuilt bit for bit by
/// data/kirk_hwu/make_expected.py.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kirk_hwu {

/// The SplitMix64 generator (Steele, Lea, Flood 2014): one 64-bit state, one output per step.
class SplitMix64 {
public:
    /// Starts the stream at @p seed.
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    /// The next 64-bit output.
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// A double uniform in [lo, hi), exact in its top 53 bits.
    double uniform(double lo, double hi) {
        const double unit = static_cast<double>(next() >> 11) * 0x1.0p-53;
        return lo + (hi - lo) * unit;
    }

private:
    std::uint64_t state_;
};

/// The sizes every input exists in.
enum class Size {
    tiny,   ///< seconds-scale CPU tests in CI
    small,  ///< the single-core CPU baselines
    medium, ///< the FP64 and atomic-scatter GPU variants, which are too slow to time at full size
    full,   ///< the documents' sizes, timed on the GPU
};

/// @p text as a Size; std::invalid_argument naming the valid sizes otherwise.
Size parse_size(const std::string& text);
/// The name of @p size.
std::string size_name(Size size);

/// The MRI inputs: M k-space samples with their coefficients and data, N voxels on an N₁³ grid. Arrays are
/// float, as in the documents; the FP64 paths read the same float values widened.
struct MriInput {
    int grid = 0;                     ///< N₁: voxels per edge
    std::vector<float> x;      ///< voxel x positions in field-of-view units, [−0.5, 0.5)
    std::vector<float> y;      ///< voxel y positions
    std::vector<float> z;      ///< voxel z positions
    std::vector<float> kx;     ///< sample kx in cycles per field of view, [−N₁/2, N₁/2)
    std::vector<float> ky;     ///< sample ky
    std::vector<float> kz;     ///< sample kz
    std::vector<float> phi_r;  ///< coefficients φ_m, real parts
    std::vector<float> phi_i;  ///< coefficients φ_m, imaginary parts
    std::vector<float> d_r;    ///< measured data d_m, real parts
    std::vector<float> d_i;    ///< measured data d_m, imaginary parts
    /// Number of voxels N.
    std::size_t voxels() const { return x.size(); }
    /// Number of samples M.
    std::size_t samples() const { return kx.size(); }
};

/// Voxels per edge and samples of an MRI input of @p size (tiny 8³ × 300, small 32³ × 3072, medium 64³ × 20000,
/// full 128³ × 100000).
struct MriShape {
    int grid;     ///< N₁
    int samples;  ///< M
};
/// The shape of the MRI input of @p size.
MriShape mri_shape(Size size);
/// Builds the MRI input of @p size (seed fixed per size).
MriInput make_mri_input(Size size);
/// Builds an MRI input of any shape from @p seed (make_mri_input uses it with the shape of a size).
MriInput make_mri_input(MriShape shape, std::uint64_t seed);

/// The Coulomb inputs: atoms (x, y, z, q) and a lattice GX × GY × GZ of spacing h starting at the origin.
struct CoulombInput {
    int gx = 0;                  ///< lattice points along x
    int gy = 0;                  ///< lattice points along y
    int gz = 0;                  ///< lattice points along z (slices)
    float spacing = 0;           ///< h
    std::vector<float> atoms;    ///< four floats per atom: x, y, z, q
    /// Number of atoms.
    std::size_t atom_count() const { return atoms.size() / 4; }
    /// Number of lattice points.
    std::size_t points() const { return static_cast<std::size_t>(gx) * gy * gz; }
};

/// The lattice and atom count of a Coulomb input (tiny 16×16×2 and 100 atoms, small 64×64×4 and 1000,
/// medium 128×128×8 and 10000, full 512×512×32 and 40000 — not a multiple of any chunk size, so the remainder chunk is exercised).
struct CoulombShape {
    int gx;     ///< lattice points along x
    int gy;     ///< lattice points along y
    int gz;     ///< lattice points along z (slices)
    int atoms;  ///< number of atoms
};
/// The shape of the Coulomb input of @p size.
CoulombShape coulomb_shape(Size size);
/// Builds the Coulomb input of @p size (seed fixed per size).
CoulombInput make_coulomb_input(Size size);
/// Builds a Coulomb input of any shape from @p seed.
CoulombInput make_coulomb_input(CoulombShape shape, std::uint64_t seed);

}  // namespace kirk_hwu
