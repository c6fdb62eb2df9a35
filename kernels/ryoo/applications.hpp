/// @file applications.hpp
/// @brief The named GPU variants of the paper's applications beyond matrix multiplication, as the host code
/// sees them: the elimination steps that call SAXPY, the TPACF histogram kernels, the RC5-72 key search,
/// the Petri-net simulation, the FDTD field updates and the LBM stream-and-collide step. Each variant's
/// name is composed from its policies.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "ryoo/cpu/rc5.hpp"
#include "ryoo/variants.hpp"

namespace ryoo {

/// One step of the unblocked elimination: rows k+1 .. n-1 of the row-major matrix @p a (leading dimension
/// @p ld, n + 1 columns with the right-hand side) updated with SAXPYs of pivot row k, columns k+1 .. n.
struct EliminationVariant {
    std::string name;     ///< "ge-row-blocks", "ge-column-tiles"
    std::string summary;  ///< one line on how the SAXPYs are mapped to threads
    /// The kernel and its launch shape (no ballast).
    std::function<KernelFacts()> facts;
    /// Launches step @p k on @p stream.
    std::function<void(float* a, int n, int ld, int k, cudaStream_t stream)> step;
};

/// What a TPACF kernel needs besides its points: the bin edges are uploaded once per input (cosines,
/// decreasing; at most tpacf_max_slots - 1 of them).
struct TpacfLaunch {
    KernelFacts facts;  ///< the kernel, its block, its shared-memory ballast
    /// Adds the slots of every pair (a_i, b_j) to @p histogram (edges + 1 64-bit counters), or of every
    /// pair i < j when @p self (a and b the same set). Points are float4 (x, y, z, unused).
    std::function<void(const float4* a, int na, const float4* b, int nb, bool self, unsigned long long* histogram,
                       cudaStream_t stream)>
        run;
};

/// One named TPACF variant.
struct TpacfVariant {
    std::string name;      ///< "tpacf-sub8", "tpacf-sub8-g80", "tpacf-warp-aggregated"
    std::string summary;   ///< one line
    int subhistograms = 1;  ///< sub-histograms per block in shared memory
    int g80_blocks_per_sm = 0;  ///< blocks per SM imposed to model the G80's 16 KB of shared memory (0: none)
    /// Prepares the variant on the current device (ballast, attributes).
    std::function<TpacfLaunch()> prepare;
};

/// Copies the bin-edge cosines into the constant memory the TPACF kernels read (every variant reads them
/// there or copies them from there to shared memory). Throws std::invalid_argument for more than
/// tpacf_max_slots - 1 edges.
void set_tpacf_edges(const std::vector<float>& cosines);

/// What a search leaves on the device: the least matching index (all ones: none) and the number of matches.
struct Rc5Found {
    unsigned long long first = ~0ull;  ///< least index whose key matched
    unsigned long long matches = 0;    ///< keys that matched
};

/// One named RC5-72 variant.
struct Rc5Variant {
    std::string name;     ///< "rc5-shift-rotate", "rc5-funnel-shift"
    std::string summary;  ///< one line
    /// The kernel and its launch shape.
    std::function<KernelFacts()> facts;
    /// Tests keys base + first .. base + first + count - 1; matches are added to @p found (device memory).
    std::function<void(const Rc5Challenge& c, std::uint64_t first, std::uint64_t count, Rc5Found* found,
                       cudaStream_t stream)>
        run;
};

/// One named Petri-net variant: trajectories simulated one per thread.
struct PnsVariant {
    std::string name;     ///< "pns-global", "pns-shared"
    std::string summary;  ///< one line
    /// The kernel and its launch shape for an @p edge x @p edge net.
    std::function<KernelFacts(int edge)> facts;
    /// Simulates trajectories first .. first + count - 1 of the @p edge x @p edge net for @p steps steps
    /// from one token per place; leaves trajectory first + t's final marking at state[p * count + t] and its
    /// number of firings at firings[t].
    std::function<void(int edge, std::uint32_t seed, std::uint32_t steps, std::uint32_t first, std::uint32_t count,
                       std::uint8_t* state, std::uint32_t* firings, cudaStream_t stream)>
        run;
};

/// The frames of an H.264 search on the device: the current frame (rows width bytes apart), the reference
/// frame in pitched memory and a texture object over it (point sampling, clamp addressing, unnormalised
/// coordinates). Owns all three; not copyable.
class H264DeviceFrames {
public:
    /// Allocates frames of @p width x @p height (multiples of 16) and creates the texture.
    H264DeviceFrames(int width, int height);
    ~H264DeviceFrames();
    H264DeviceFrames(const H264DeviceFrames&) = delete;
    H264DeviceFrames& operator=(const H264DeviceFrames&) = delete;
    /// Copies both frames (width * height bytes each, row-major) to the device on @p stream.
    void upload(const std::uint8_t* current, const std::uint8_t* reference, cudaStream_t stream);
    const std::uint8_t* current() const { return current_; }      ///< the current frame on the device
    const std::uint8_t* reference() const { return reference_; }  ///< the reference frame on the device
    int pitch() const { return static_cast<int>(pitch_); }       ///< bytes between reference rows
    int width() const { return width_; }                          ///< pixels per row
    int height() const { return height_; }                        ///< rows
    cudaTextureObject_t texture() const { return texture_; }      ///< the reference as a texture

private:
    int width_ = 0, height_ = 0;
    std::uint8_t* current_ = nullptr;
    std::uint8_t* reference_ = nullptr;
    std::size_t pitch_ = 0;
    cudaTextureObject_t texture_ = 0;
};

/// One named H.264 SAD variant: how the reference is read and how the SAD loops are written.
struct H264Variant {
    std::string name;     ///< "sad-<global|ldg|texture>-<rolled|unrolled|tiled3>"
    std::string summary;  ///< one line
    /// The 4x4 SAD kernel and its launch shape.
    std::function<KernelFacts()> facts;
    /// Every 4x4 SAD of the frames at every vector of the +-@p range window into @p sad4 (device memory,
    /// h264_positions(range) per block, blocks row-major over the 4x4 grid).
    std::function<void(const H264DeviceFrames& frames, int range, std::uint16_t* sad4, cudaStream_t stream)> run;
};

/// One named RPES variant: where the ket pairs and the fit table are read.
struct RpesVariant {
    std::string name;     ///< "rpes-kets-<global|shared>-fit-<constant|shared>"
    std::string summary;  ///< one line
    /// The kernel and its launch shape.
    std::function<KernelFacts()> facts;
    /// Clears @p j and sets j[ab] = sum over every pair cd of (ab|cd) D_cd for the @p m pairs (device memory:
    /// geometry (Px, Py, Pz, p), factors k_ab, ket factors k_cd D_cd); the fit table must be set.
    std::function<void(const float4* geometry, const float* k, const float* kd, int m, float* j, cudaStream_t stream)> run;
};

/// Copies the fit table (rpes_table_size floats, rpes_fit_table()) into the constant memory the RPES
/// kernels read. Throws std::invalid_argument for a table of another size.
void set_rpes_table(const std::vector<float>& table);

/// The 8x8 and 16x16 SADs summed from the 4x4 SADs @p sad4 of a @p width wide frame of @p macroblocks
/// macroblocks (the same kernel for every variant).
void h264_larger(const std::uint16_t* sad4, int width, int macroblocks, int range, std::uint16_t* sad8, std::uint16_t* sad16,
                 cudaStream_t stream);

/// The device fields and coefficients of one FDTD run (nx * ny floats each, index y nx + x).
struct FdtdDevice {
    float* ex = nullptr;      ///< Ex
    float* ey = nullptr;      ///< Ey
    float* hz = nullptr;      ///< Hz
    const float* ce = nullptr;  ///< the E updates' coefficient per cell
    const float* ch = nullptr;  ///< the H update's coefficient per cell
    int nx = 0;               ///< cells along x
    int ny = 0;               ///< cells along y
    int source_index = -1;    ///< cell of the point source (-1: none)
};

/// One named FDTD variant: how one time step is split into launches.
struct FdtdVariant {
    std::string name;     ///< "fdtd-separate-e", "fdtd-fused-e"
    std::string summary;  ///< one line
    /// The electric-field kernel (the one the profiler measures) and its launch shape.
    std::function<KernelFacts()> facts;
    /// Launches one time step on @p stream: the electric field, then the magnetic field plus @p source at the
    /// source cell.
    std::function<void(const FdtdDevice& d, float source, cudaStream_t stream)> step;
    /// Launches only the electric-field kernel (ex and ey as facts() names; the profiler's one launch).
    std::function<void(const FdtdDevice& d, cudaStream_t stream)> electric;
};

/// The lattice of one LBM run on the device: its cell flags and its size.
struct LbmGeometry {
    const std::uint8_t* flags = nullptr;  ///< one flag per cell (ryoo::LbmCell values)
    int nx = 0;                           ///< cells along x
    int ny = 0;                           ///< cells along y
    int nz = 0;                           ///< cells along z
    float omega = 1;                      ///< BGK relaxation rate
    float lid_velocity = 0;               ///< x-velocity imposed on the lid cells
};

/// One named LBM variant: a layout of the 19 distributions per cell and a way to load them.
struct LbmVariant {
    std::string name;     ///< "lbm-aos-direct", "lbm-aos-staged", "lbm-soa-direct"
    std::string summary;  ///< one line
    bool soa = false;     ///< the distributions are stored direction after direction (else cell after cell)
    /// The kernel and its launch shape.
    std::function<KernelFacts()> facts;
    /// One stream-and-collide step from @p src to @p dst (19 floats per cell in the variant's layout).
    std::function<void(const float* src, float* dst, const LbmGeometry& g, cudaStream_t stream)> step;
};

/// The device mesh of one FEM run (a FemMesh's arrays) and the velocity the steps update in place.
struct FemDevice {
    const std::int32_t* row_start = nullptr;  ///< nodes + 1 row offsets
    const std::int32_t* column = nullptr;     ///< node number of each stiffness entry
    const float* value = nullptr;             ///< K_ij of each entry
    const float* step_weight = nullptr;       ///< dt / mass per node
    float* v = nullptr;                       ///< velocity per node (updated in place)
    float dt = 0;                             ///< time step
    int nodes = 0;                            ///< nodes of the mesh
};

/// One named FEM variant: the numbering of the mesh it runs on (the kernel is the same).
struct FemVariant {
    std::string name;          ///< "fem-csr-shuffled", "fem-csr-rowordered"
    std::string summary;       ///< one line
    bool row_ordered = false;  ///< runs on fem_row_ordered(mesh) (else on the mesh as numbered)
    /// The kernel and its launch shape.
    std::function<KernelFacts()> facts;
    /// One time step on @p stream: reads the displacement @p u, updates d.v and writes the new displacement
    /// to @p u_next.
    std::function<void(const FemDevice& d, const float* u, float* u_next, cudaStream_t stream)> step;
};

/// Adds the elimination variants (kernels/ryoo/elimination_variants.cu).
void add_elimination_variants(harness::Registry<EliminationVariant>& registry);
/// Adds the TPACF variants (kernels/ryoo/tpacf_variants.cu).
void add_tpacf_variants(harness::Registry<TpacfVariant>& registry);
/// Adds the RC5-72 variants (kernels/ryoo/rc5_variants.cu).
void add_rc5_variants(harness::Registry<Rc5Variant>& registry);
/// Adds the Petri-net variants (kernels/ryoo/pns_variants.cu).
void add_pns_variants(harness::Registry<PnsVariant>& registry);

/// Adds the H.264 SAD variants (kernels/ryoo/h264_variants.cu).
void add_h264_variants(harness::Registry<H264Variant>& registry);
/// Adds the RPES variants (kernels/ryoo/rpes_variants.cu).
void add_rpes_variants(harness::Registry<RpesVariant>& registry);
/// Adds the FDTD variants (kernels/ryoo/fdtd_variants.cu).
void add_fdtd_variants(harness::Registry<FdtdVariant>& registry);
/// Adds the LBM variants (kernels/ryoo/lbm_variants.cu).
void add_lbm_variants(harness::Registry<LbmVariant>& registry);
/// Adds the FEM stand-in's variants (kernels/ryoo/fem_variants.cu).
void add_fem_variants(harness::Registry<FemVariant>& registry);

/// Every elimination variant.
const harness::Registry<EliminationVariant>& elimination_variants();
/// Every TPACF variant.
const harness::Registry<TpacfVariant>& tpacf_variants();
/// Every RC5-72 variant.
const harness::Registry<Rc5Variant>& rc5_variants();
/// Every Petri-net variant.
const harness::Registry<PnsVariant>& pns_variants();
/// Every H.264 SAD variant.
const harness::Registry<H264Variant>& h264_variants();
/// Every RPES variant.
const harness::Registry<RpesVariant>& rpes_variants();
/// Every FDTD variant.
const harness::Registry<FdtdVariant>& fdtd_variants();
/// Every LBM variant.
const harness::Registry<LbmVariant>& lbm_variants();
/// Every FEM stand-in variant.
const harness::Registry<FemVariant>& fem_variants();

}  // namespace ryoo
