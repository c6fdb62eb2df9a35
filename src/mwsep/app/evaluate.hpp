/// @file evaluate.hpp
/// @brief One evaluation end to end: files -> model -> integrator (CPU or CUDA) -> result.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "mwsep/cpu/compressed.hpp"
#include "mwsep/geometry/tables.hpp"
#include "mwsep/model/progress.hpp"
#include "mwsep/model/result.hpp"
#include "mwsep/model/work_unit.hpp"

namespace mwsep::app {

/// What to evaluate and how.
struct RunOptions {
    std::string astronomy_path;                       ///< the work unit, astronomy_parameters.txt (spec 1.1)
    std::string stars_path;                           ///< the star catalogue, stars.txt (spec 1.3)
    std::optional<std::string> search_path;           ///< 2009 search_parameters.txt
    std::optional<model::SearchVector> search_vector; ///< --np/-p form
    model::RBinning r_binning = model::RBinning::magnitude;  ///< spacing of the r bins (spec 2.8)
    std::string backend = "cpu";     ///< cpu | cuda
    std::string cpu_integrator = "fast";  ///< reference | fast | compressed (a different algorithm, cpu/compressed.hpp)
    double compressed_tolerance = 1e-14;  ///< the compressed integrator's controller tolerance
    int threads = 0;                 ///< fast CPU threads (0: all cores)
    std::string variant = "shared-fast-unrolled-f64";  ///< CUDA kernel variant
    int device = -1;                 ///< CUDA device (-1: the fastest double-capable one)
    bool force = false;              ///< compute even above the size limits of check_work
    /// The checkpoint file of the integral (--checkpoint): resumed from if it exists, saved at
    /// checkpoint_interval and on SIGINT/SIGTERM, removed once the run has finished.
    std::optional<std::string> checkpoint_path;
    double checkpoint_interval = 60;  ///< seconds between periodic checkpoints
    std::function<bool()> checkpoint_due;    ///< the checkpoint's also_due (empty: the interval alone)
    std::function<void()> checkpoint_saved;  ///< the checkpoint's on_saved (empty: nothing)
};

/// Above these sizes a work unit is refused unless forced: each would take hours or more memory than a
/// workstation has. The largest committed work units have 2.15e10 quadrature points and convolve 120.
/// This one: quadrature points per component.
inline constexpr double max_quadrature_points = 1e12;
/// Bytes of tables (an estimate made before they are built); see max_quadrature_points.
inline constexpr double max_table_bytes = 8.0 * (1ull << 30);
inline constexpr int max_convolve = 4096;  ///< the Gauss-Legendre set-up costs O(convolve^2)

/// Quadrature points and table bytes of a model, computed from its grids before any table is built.
struct WorkSize {
    double points = 0;       ///< every area's mu x nu x r x convolve points (per component)
    double table_bytes = 0;  ///< an estimate of the tables make_setup and the integrators allocate
};
/// The work of @p m, from its grid sizes alone (cheap: nothing is allocated).
WorkSize work_size(const model::Model& m);

/// Throws std::runtime_error, naming the keys and their values, if @p m is above a size limit and
/// @p force is false. Every command that builds tables calls it between build_model and make_setup.
void check_work(const model::Model& m, bool force);

/// Rough rates, quadrature points per component and second, for the estimate a run prints before it starts
/// (measured on the committed H200 host: experiments/results/nvidia-h200/mwsep/cpu_vs_gpu*.csv, 3s-large).
/// A different machine differs; the estimate says which rate it used.
inline constexpr double fast_points_per_second_per_thread = 2.7e8;  ///< fast CPU integrator, per thread
inline constexpr double extended_points_per_second_per_thread = 3e7;  ///< extended-precision CPU integrator, per thread (this machine's 3s-small run, background dominating)
inline constexpr double reference_points_per_second = 2.4e7;        ///< reference CPU integrator (one thread)
/// The CPU likelihood's stars per second and thread (the 2-stream small units, convolve 120, on a 2-core x86
/// development machine; every star's densities are a convolution over r, so a catalogue of 1e5 stars costs
/// about a second, more than the small units' integrals).
inline constexpr double likelihood_stars_per_second_per_thread = 1e5;
inline constexpr double modern_gpu_points_per_second = 3.2e11;      ///< modern-f64 on one H200
inline constexpr double thesis_gpu_points_per_second = 9e10;        ///< the thesis's variants on one H200

/// One line for the user before the work starts: quadrature points, table bytes and the estimated time of
/// the integral with the backend, integrator or variant and thread count of @p o.
std::string work_summary(const model::Model& m, const RunOptions& o);

/// build_model, check_work and make_setup: the tables of @p file, refused if too large.
geometry::IntegrationSetup checked_setup(const model::AstronomyParameters& file, const RunOptions& o);

/// Parsed and derived inputs, ready for any integrator.
struct Inputs {
    model::AstronomyParameters file;   ///< the work unit as read, with the search vector applied
    geometry::IntegrationSetup setup;  ///< the validated model and every table derived from it
    model::StarCatalogue stars;        ///< the stars, in file order
};

/// Reads the work unit of @p o with its parameter vector (file or --np/-p) applied.
model::AstronomyParameters read_work_unit(const RunOptions& o);

/// Reads and validates every input of @p o; throws model::InputError on bad input.
Inputs load_inputs(const RunOptions& o);

/// The outcome of one evaluation, with timings [s].
struct RunResult {
    model::Integrals integrals;     ///< I_bg and I_s over the wedge, cuts subtracted
    model::Likelihood likelihood;   ///< L and its diagnostics
    double load_seconds = 0;        ///< reading and checking the inputs; set by the caller (evaluate() leaves 0)
    double integral_seconds = 0;    ///< integrals: wall clock on the CPU, kernel time (CUDA events) on the GPU
    double likelihood_seconds = 0;  ///< likelihood, timed like integral_seconds
    double total_seconds = 0;       ///< wall clock of evaluate(), including GPU setup, transfers and host sums
    double prepare_seconds = 0;     ///< CUDA: host tables, allocations and uploads before the kernels
    double device_wait_seconds = 0; ///< CUDA: time spent waiting for the devices' start-up after loading and the early host work; set by the caller
    double host_prepare_seconds = 0; ///< CUDA: the host work done while the devices start (EarlyWork); set by the caller
    std::string device;  ///< what computed it ("CPU ..." or the GPU's name)
    std::optional<cpu::CompressedReport> controller;  ///< the compressed quadrature's controller (CPU or GPU)
    std::size_t integral_device_bytes = 0;  ///< CUDA: device memory of the integral's buffers (cuda::GpuResult)
    std::size_t star_device_bytes = 0;      ///< CUDA: device memory of the stars and per-star outputs
};

/// Starts what the backend of @p o needs before it can compute (for CUDA: the devices' contexts) on
/// another thread, so that it overlaps reading the inputs; get() the result before evaluate(). It
/// rethrows what went wrong (for instance: no CUDA device).
std::future<void> start_backend(const RunOptions& o);

/// The host work of a backend that can be done before the backend has started (CUDA: the integral's host
/// tables and the star table), made by prepare_early() while the devices start and used by evaluate().
struct EarlyWork {
    EarlyWork();
    ~EarlyWork();
    EarlyWork(EarlyWork&&) noexcept;             ///< moves the work
    EarlyWork& operator=(EarlyWork&&) noexcept;  ///< moves the work
    double seconds = 0;  ///< wall clock of prepare_early()
    struct State;                  ///< the backend's own part (defined where the backend is)
    std::unique_ptr<State> state;  ///< empty where the backend has nothing to do early (the CPU)
};

/// The early host work of @p in for the backend of @p o; call it after start_backend(), before waiting for
/// it. A failure is kept and thrown by evaluate() where the work would otherwise have been done.
EarlyWork prepare_early(const Inputs& in, const RunOptions& o);

/// The hash that identifies a run's inputs and settings in its checkpoint: the bytes of the work unit,
/// the stars and the parameter file (or the vector's values), the r binning and @p engine.
std::uint64_t run_identity(const RunOptions& o, const std::string& engine);

/// Evaluates the likelihood of @p in with the backend of @p o. With o.checkpoint_path the integral is
/// checkpointed (CPU backends and the modern CUDA variants); an interruption throws resume::Interrupted
/// after saving. With @p early (from prepare_early() for the same @p in and @p o) its work is used, not
/// repeated: the same result, bit for bit.
RunResult evaluate(const Inputs& in, const RunOptions& o, const model::ProgressFn& progress = {},
                   EarlyWork* early = nullptr);

/// CLOCK_MONOTONIC now [ns]: the clock that Python's time.monotonic_ns() reads on Linux, so that a program
/// which starts this process can place the process's own timestamps on its time line (start-up and exit).
std::int64_t monotonic_ns();

/// Records the moment main() was entered; main() calls it before anything else.
void note_main_entry();

/// The moment note_main_entry() recorded [monotonic_ns()], or 0 where it was not called.
std::int64_t main_entry_ns();

/// Name of the host CPU (from /proc/cpuinfo), for provenance.
std::string host_cpu_name();

}  // namespace mwsep::app
