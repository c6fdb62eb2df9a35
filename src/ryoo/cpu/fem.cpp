// The FEM stand-in's mesh, assembly and time stepping on one CPU thread.
#include "ryoo/cpu/fem.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "ryoo/fem_math.hpp"

namespace ryoo {

namespace {

/// One value of the splitmix64 sequence after @p state (advanced).
std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// The grid offsets of a row's entries, in the row's stored order: the node itself, then the 14 edges of the
/// split grid (every offset whose nonzero components are all +1 or all -1).
constexpr std::array<std::array<int, 3>, fem_row_capacity> row_offsets = {{{0, 0, 0},
                                                                          {1, 0, 0},
                                                                          {-1, 0, 0},
                                                                          {0, 1, 0},
                                                                          {0, -1, 0},
                                                                          {0, 0, 1},
                                                                          {0, 0, -1},
                                                                          {1, 1, 0},
                                                                          {-1, -1, 0},
                                                                          {1, 0, 1},
                                                                          {-1, 0, -1},
                                                                          {0, 1, 1},
                                                                          {0, -1, -1},
                                                                          {1, 1, 1},
                                                                          {-1, -1, -1}}};

/// The slot of grid offset (dx, dy, dz) in row_offsets, or -1 when it is not an edge.
int offset_slot(int dx, int dy, int dz) {
    for (int s = 0; s < fem_row_capacity; ++s)
        if (row_offsets[s][0] == dx && row_offsets[s][1] == dy && row_offsets[s][2] == dz) return s;
    return -1;
}

/// The inverse of the permutation @p number (checked to be one of 0 .. number.size() - 1).
std::vector<std::int32_t> inverse_of(const std::vector<std::int32_t>& number) {
    std::vector<std::int32_t> grid(number.size(), -1);
    for (std::size_t g = 0; g < number.size(); ++g) {
        const std::int32_t i = number[g];
        if (i < 0 || static_cast<std::size_t>(i) >= number.size() || grid[i] != -1)
            throw std::invalid_argument("fem mesh: the node numbering is not a permutation of the " + std::to_string(number.size()) +
                                        " grid points (number " + std::to_string(i) + " out of range or repeated)");
        grid[i] = static_cast<std::int32_t>(g);
    }
    return grid;
}

}  // namespace

std::vector<std::int32_t> fem_permutation(std::size_t count, std::uint64_t seed) {
    std::vector<std::int32_t> p(count);
    for (std::size_t i = 0; i < count; ++i) p[i] = static_cast<std::int32_t>(i);
    std::uint64_t state = seed;
    for (std::size_t i = count; i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(splitmix64(state) % i);
        std::swap(p[i - 1], p[j]);
    }
    return p;
}

FemMesh fem_mesh(int n, double jitter, double grade, std::vector<std::int32_t> number) {
    if (n < 1 || n > 512) throw std::invalid_argument("fem mesh: cubes per edge must be between 1 and 512, got " + std::to_string(n));
    if (!(jitter >= 0 && jitter <= 0.2)) throw std::invalid_argument("fem mesh: the jitter must be in [0, 0.2] cell lengths");
    if (!(grade > -1)) throw std::invalid_argument("fem mesh: the grade must be above -1 (the coefficient 1 + grade x stays positive)");
    const int p = n + 1;
    const std::size_t points = static_cast<std::size_t>(p) * p * p;
    if (number.empty()) {
        number.resize(points);
        for (std::size_t g = 0; g < points; ++g) number[g] = static_cast<std::int32_t>(g);
    }
    if (number.size() != points)
        throw std::invalid_argument("fem mesh: the numbering has " + std::to_string(number.size()) + " entries, the grid " +
                                    std::to_string(points) + " points");
    const std::vector<std::int32_t> grid = inverse_of(number);
    const double h = 1.0 / n;
    const auto index = [p](int x, int y, int z) { return (static_cast<std::size_t>(z) * p + y) * p + x; };
    // Node positions: the grid, interior points moved by a fixed pseudo-random fraction of a cell.
    std::vector<std::array<double, 3>> position(points);
    for (int z = 0; z < p; ++z)
        for (int y = 0; y < p; ++y)
            for (int x = 0; x < p; ++x) {
                const std::size_t g = index(x, y, z);
                std::array<double, 3> q = {x * h, y * h, z * h};
                if (x > 0 && y > 0 && z > 0 && x < n && y < n && z < n) {
                    std::uint64_t state = 0x5EEDull + g;
                    for (double& c : q) c += jitter * h * (2.0 * static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53 - 1.0);
                }
                position[g] = q;
            }
    std::vector<double> k(points * fem_row_capacity, 0.0), mass(points, 0.0);
    // The axis orders of the six tetrahedra and the sign of their unjittered determinant (the parity).
    static constexpr int axes[6][4] = {{0, 1, 2, 1}, {0, 2, 1, -1}, {1, 0, 2, -1}, {1, 2, 0, 1}, {2, 0, 1, 1}, {2, 1, 0, -1}};
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                for (const auto& a : axes) {
                    // The tetrahedron 000, e_a, e_a + e_b, 111 of the cube at (x, y, z).
                    std::array<std::array<int, 3>, 4> corner{};
                    corner[1][a[0]] = 1;
                    corner[2] = corner[1];
                    corner[2][a[1]] = 1;
                    corner[3] = {1, 1, 1};
                    std::array<std::size_t, 4> g{};
                    for (int v = 0; v < 4; ++v) g[v] = index(x + corner[v][0], y + corner[v][1], z + corner[v][2]);
                    double j[3][3];  // columns: edges from vertex 0
                    for (int c = 0; c < 3; ++c)
                        for (int r = 0; r < 3; ++r) j[r][c] = position[g[c + 1]][r] - position[g[0]][r];
                    const double det = j[0][0] * (j[1][1] * j[2][2] - j[1][2] * j[2][1]) - j[0][1] * (j[1][0] * j[2][2] - j[1][2] * j[2][0]) +
                                       j[0][2] * (j[1][0] * j[2][1] - j[1][1] * j[2][0]);
                    if (!(det * a[3] > 0)) throw std::invalid_argument("fem mesh: a tetrahedron is inverted or flat (jitter too large)");
                    // Rows of J^-1 are the gradients of the barycentric coordinates of vertices 1..3.
                    double grad[4][3];
                    for (int r = 0; r < 3; ++r) {
                        const int r1 = (r + 1) % 3, r2 = (r + 2) % 3;
                        // Row r of the inverse: (column r1 x column r2) / det.
                        grad[r + 1][0] = (j[1][r1] * j[2][r2] - j[2][r1] * j[1][r2]) / det;
                        grad[r + 1][1] = (j[2][r1] * j[0][r2] - j[0][r1] * j[2][r2]) / det;
                        grad[r + 1][2] = (j[0][r1] * j[1][r2] - j[1][r1] * j[0][r2]) / det;
                    }
                    for (int c = 0; c < 3; ++c) grad[0][c] = -(grad[1][c] + grad[2][c] + grad[3][c]);
                    const double volume = det * a[3] / 6;
                    double cx = 0;
                    for (int v = 0; v < 4; ++v) cx += position[g[v]][0] / 4;
                    const double weight = (1 + grade * cx) * volume;
                    for (int va = 0; va < 4; ++va) {
                        mass[g[va]] += volume / 4;
                        for (int vb = 0; vb < 4; ++vb) {
                            const int slot = offset_slot(corner[vb][0] - corner[va][0], corner[vb][1] - corner[va][1], corner[vb][2] - corner[va][2]);
                            if (slot < 0) throw std::logic_error("fem mesh: a tetrahedron edge is not a grid edge");
                            k[g[va] * fem_row_capacity + slot] +=
                                weight * (grad[va][0] * grad[vb][0] + grad[va][1] * grad[vb][1] + grad[va][2] * grad[vb][2]);
                        }
                    }
                }
    FemMesh m;
    m.n = n;
    m.number = std::move(number);
    m.row_start.reserve(points + 1);
    m.row_start.push_back(0);
    m.mass.resize(points);
    double largest = 0;
    for (std::size_t i = 0; i < points; ++i) {
        const std::size_t g = static_cast<std::size_t>(grid[i]);
        const int x = static_cast<int>(g % p), y = static_cast<int>(g / p % p), z = static_cast<int>(g / p / p);
        double row = 0;
        for (int s = 0; s < fem_row_capacity; ++s) {
            const int nx = x + row_offsets[s][0], ny = y + row_offsets[s][1], nz = z + row_offsets[s][2];
            if (nx < 0 || ny < 0 || nz < 0 || nx >= p || ny >= p || nz >= p) continue;
            m.column.push_back(m.number[index(nx, ny, nz)]);
            m.value.push_back(static_cast<float>(k[g * fem_row_capacity + s]));
            row += std::fabs(k[g * fem_row_capacity + s]);
        }
        m.row_start.push_back(static_cast<std::int32_t>(m.column.size()));
        m.mass[i] = static_cast<float>(mass[g]);
        largest = std::fmax(largest, row / mass[g]);
    }
    m.dt = static_cast<float>(0.9 / std::sqrt(largest));
    m.step_weight.resize(points);
    for (std::size_t i = 0; i < points; ++i) m.step_weight[i] = static_cast<float>(static_cast<double>(m.dt) / mass[grid[i]]);
    return m;
}

FemMesh synthetic_fem_mesh(int n) {
    const std::size_t points = static_cast<std::size_t>(n + 1) * (n + 1) * (n + 1);
    return fem_mesh(n, 0.15, 3.0, fem_permutation(n >= 1 ? points : 0, 2008));
}

FemMesh fem_row_ordered(const FemMesh& mesh) {
    const std::size_t points = mesh.nodes();
    const std::vector<std::int32_t> grid = inverse_of(mesh.number);
    FemMesh m;
    m.n = mesh.n;
    m.dt = mesh.dt;
    m.number.resize(points);
    for (std::size_t g = 0; g < points; ++g) m.number[g] = static_cast<std::int32_t>(g);
    m.row_start.reserve(points + 1);
    m.row_start.push_back(0);
    m.column.reserve(mesh.entries());
    m.value.reserve(mesh.entries());
    m.mass.resize(points);
    m.step_weight.resize(points);
    for (std::size_t g = 0; g < points; ++g) {
        const std::size_t old = static_cast<std::size_t>(mesh.number[g]);
        for (std::int32_t e = mesh.row_start[old]; e < mesh.row_start[old + 1]; ++e) {
            m.column.push_back(grid[mesh.column[e]]);
            m.value.push_back(mesh.value[e]);
        }
        m.row_start.push_back(static_cast<std::int32_t>(m.column.size()));
        m.mass[g] = mesh.mass[old];
        m.step_weight[g] = mesh.step_weight[old];
    }
    return m;
}

FemState fem_initial(const FemMesh& mesh) {
    const int p = mesh.n + 1;
    FemState s;
    s.u.assign(mesh.nodes(), 0.0f);
    s.v.assign(mesh.nodes(), 0.0f);
    for (std::size_t g = 0; g < mesh.nodes(); ++g) {
        const double x = static_cast<double>(g % p) / mesh.n - 0.3, y = static_cast<double>(g / p % p) / mesh.n - 0.5,
                     z = static_cast<double>(g / p / p) / mesh.n - 0.5;
        s.u[mesh.number[g]] = static_cast<float>(std::exp(-(x * x + y * y + z * z) / 0.01));
    }
    return s;
}

void fem_step_cpu(const FemMesh& mesh, const std::vector<float>& u, std::vector<float>& v, std::vector<float>& u_next) {
    const std::size_t nodes = mesh.nodes();
    const std::int32_t* start = mesh.row_start.data();
    const std::int32_t* column = mesh.column.data();
    const float* value = mesh.value.data();
    for (std::size_t i = 0; i < nodes; ++i) {
        float f = 0.0f;
        for (std::int32_t e = start[i]; e < start[i + 1]; ++e) f = fem_gather(f, value[e], u[column[e]]);
        const float vn = fem_velocity(v[i], mesh.step_weight[i], f);
        v[i] = vn;
        u_next[i] = fem_displacement(u[i], mesh.dt, vn);
    }
}

void fem_run_cpu(const FemMesh& mesh, FemState& s, int steps) {
    std::vector<float> next(s.u.size());
    for (int t = 0; t < steps; ++t) {
        fem_step_cpu(mesh, s.u, s.v, next);
        s.u.swap(next);
    }
}

double fem_energy(const FemMesh& mesh, const FemState& s) {
    double e = 0;
    for (std::size_t i = 0; i < mesh.nodes(); ++i) {
        double ku = 0;
        for (std::int32_t k = mesh.row_start[i]; k < mesh.row_start[i + 1]; ++k) ku += static_cast<double>(mesh.value[k]) * s.u[mesh.column[k]];
        e += static_cast<double>(mesh.mass[i]) * s.v[i] * s.v[i] + static_cast<double>(s.u[i]) * ku;
    }
    return e / 2;
}

double fem_momentum(const FemMesh& mesh, const FemState& s) {
    double sum = 0;
    for (std::size_t i = 0; i < mesh.nodes(); ++i) sum += static_cast<double>(mesh.mass[i]) * s.v[i];
    return sum;
}

FemState fem_renumber(const FemMesh& mesh, const FemState& s, const FemMesh& other) {
    FemState out;
    out.u.resize(s.u.size());
    out.v.resize(s.v.size());
    for (std::size_t g = 0; g < mesh.number.size(); ++g) {
        out.u[other.number[g]] = s.u[mesh.number[g]];
        out.v[other.number[g]] = s.v[mesh.number[g]];
    }
    return out;
}

}  // namespace ryoo
