/// @file fem.hpp
/// @brief The FEM stand-in on one CPU thread: a synthetic tetrahedral mesh of a graded material (a grid of
/// cubes, each split into six tetrahedra along its main diagonal, interior nodes jittered, node numbers
/// shuffled by a fixed permutation), its assembled stiffness matrix in compressed rows with a lumped mass,
/// and the explicit time stepping of the scalar wave equation rho u'' = div(c grad u) on it.
///
/// Ryoo et al.'s FEM code is not public; this is a labelled stand-in with the same kind of memory traffic
/// (a node-by-node gather over an unstructured connectivity), not a reconstruction. Boundaries are free
/// (natural), so K has zero row sums and the total momentum sum m_i v_i is conserved.
#pragma once

#include <cstdint>
#include <vector>

namespace ryoo {

/// Entries of a row of the stiffness matrix at most: the node itself and its 14 neighbours in the split grid.
inline constexpr int fem_row_capacity = 15;

/// The assembled mesh: the stiffness matrix in compressed rows, lumped masses and the time step.
///
/// Each row lists the node itself first, then its neighbours in a fixed geometric order (the grid offset of
/// the neighbour), whatever the numbering, so that two numberings of one mesh sum every row in the same order.
struct FemMesh {
    int n = 0;                            ///< cubes along each edge (nodes along an edge: n + 1)
    float dt = 0;                         ///< time step (stable: below the Gershgorin bound of M^-1 K)
    std::vector<std::int32_t> row_start;  ///< nodes + 1 offsets into column and value
    std::vector<std::int32_t> column;     ///< node number of each entry
    std::vector<float> value;             ///< K_ij of each entry (assembled in double, rounded once)
    std::vector<float> mass;              ///< lumped mass per node (rounded from double)
    std::vector<float> step_weight;       ///< dt / mass per node
    std::vector<std::int32_t> number;     ///< number[g]: node number of grid point g (index (z (n+1) + y) (n+1) + x)
    /// Nodes of the mesh.
    std::size_t nodes() const { return mass.size(); }
    /// Stored entries of the stiffness matrix.
    std::size_t entries() const { return value.size(); }
};

/// The state of one run: displacement and velocity per node.
struct FemState {
    std::vector<float> u;  ///< displacement per node
    std::vector<float> v;  ///< velocity per node
    /// Equal in every member (GPU states are compared with the CPU's exactly).
    bool operator==(const FemState&) const = default;
};

/// A fixed permutation of 0 .. count - 1 from @p seed (Fisher-Yates with a splitmix64 stream).
std::vector<std::int32_t> fem_permutation(std::size_t count, std::uint64_t seed);

/// The mesh of n^3 cubes of edge 1/n on the unit cube: interior nodes moved by up to @p jitter cell lengths
/// along each axis (a fixed pseudo-random amount), material coefficient c = 1 + @p grade x (density 1), nodes
/// numbered by @p number (a permutation of the grid points; empty: the grid's row order). dt is 0.9 / sqrt of
/// the largest row sum of |K_ij| / m_i. Throws std::invalid_argument for n below 1 or above 512, a jitter
/// outside [0, 0.2], a grade at or below -1, a numbering that is not a permutation of the grid points, or an
/// inverted or flat tetrahedron.
FemMesh fem_mesh(int n, double jitter, double grade, std::vector<std::int32_t> number);

/// The synthetic mesh of the application: jitter 0.15, grade 3 (the coefficient grows fourfold along x),
/// nodes shuffled by fem_permutation(nodes, 2008).
FemMesh synthetic_fem_mesh(int n);

/// The same mesh renumbered in the grid's row order (z, then y, then x), rows in the same entry order.
FemMesh fem_row_ordered(const FemMesh& mesh);

/// The initial state: u a Gaussian bump of width 0.1 centred at (0.3, 0.5, 0.5) (by grid position), v zero.
FemState fem_initial(const FemMesh& mesh);

/// One time step of every node (fem_math.hpp's arithmetic): the new displacement goes to @p u_next.
void fem_step_cpu(const FemMesh& mesh, const std::vector<float>& u, std::vector<float>& v, std::vector<float>& u_next);

/// @p steps time steps from @p s.
void fem_run_cpu(const FemMesh& mesh, FemState& s, int steps);

/// The energy (v^T M v + u^T K u) / 2 in double precision.
double fem_energy(const FemMesh& mesh, const FemState& s);

/// The total momentum sum m_i v_i in double precision.
double fem_momentum(const FemMesh& mesh, const FemState& s);

/// @p s of @p mesh expressed in the numbering of @p other (the same grid, another numbering).
FemState fem_renumber(const FemMesh& mesh, const FemState& s, const FemMesh& other);

}  // namespace ryoo
