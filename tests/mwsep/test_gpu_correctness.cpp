// GPU correctness: every kernel variant against the CPU on the tiny and small work units and on the
// oracle cases (tests/data/oracle). Double-precision variants must agree to 1e-12 relative (integrals and likelihood);
// single-precision variants to the digits the thesis reports (likelihood to 1e-5 relative, integrals to
// 1e-4). The likelihood kernel poisons its outputs first, so a star it never wrote fails.
// Without a GPU every test skips with a visible message. With MWSEP_GPU_RESULTS set to a folder, the
// outcome of every comparison is written there as gpu_correctness.csv.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>
#include <tuple>
#include <cstdint>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "mwsep/cpu/integrators.hpp"
#include "mwsep/cuda_check.hpp"
#include "mwsep/cuda/backend.hpp"
#include "mwsep/cuda/commands.hpp"
#include "mwsep/generate/catalogue.hpp"
#include "mwsep/model/astronomy_parameters.hpp"
#include "mwsep/model/build_model.hpp"
#include "mwsep/model/search_parameters.hpp"
#include "mwsep/model/stars.hpp"
#include "test_support.hpp"
#include "mwsep/math/exp_lean.hpp"
#include "mwsep/math/refine.hpp"
#include "mwsep/math/sightline.hpp"
#include "mwsep/math/summation.hpp"
#include "mwsep/modern.hpp"
#include "mwsep/modern_kernels.hpp"
#include "mwsep/cuda/variants.hpp"
#include "harness/registry.hpp"
#include "gpu_support.hpp"

namespace {

using namespace testsupport;

using testsupport::have_gpu;

/// One work unit with its stars and the CPU's answer, computed once per test program.
struct Workload {
    mwsep::geometry::IntegrationSetup setup;
    mwsep::model::StarCatalogue stars;
    mwsep::model::Integrals integrals;
    mwsep::model::Likelihood likelihood;
};

std::map<std::string, std::shared_ptr<Workload>>& cache() {
    static std::map<std::string, std::shared_ptr<Workload>> c;
    return c;
}

std::shared_ptr<Workload> load(const std::string& name) {
    auto& c = cache();
    if (c.count(name)) return c[name];
    auto w = std::make_shared<Workload>();
    if (name.rfind("oracle:", 0) == 0) {
        const auto dir = oracle_case(name.substr(7));  // committed with the tests: missing means failed
        auto ap = mwsep::model::read_astronomy_parameters(require_file(dir / "astronomy_parameters.txt").string());
        mwsep::model::apply_search_vector(
            ap, mwsep::model::read_search_parameters(require_file(dir / "search_parameters.txt").string()));
        w->setup = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
        w->stars = mwsep::model::read_stars(oracle_stars(dir).string());
    } else {
        const auto ap = mwsep::model::read_astronomy_parameters(workunit(name).string());
        w->setup = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
        mwsep::generate::Options g;
        g.count = 20000;
        g.seed = 1;
        g.envelope_mu = 80, g.envelope_nu = 8, g.envelope_r = 35;
        w->stars = mwsep::generate::generate_catalogue(w->setup, g).stars;
    }
    // The reference integrator on the reduced cases; the fast one (agreeing with it to 1e-13, see the
    // CPU tests) on the small units, whose reference run would take minutes.
    const bool big = w->setup.areas[0].cells() * w->setup.areas[0].r.n_r > 5'000'000;
    w->integrals = big ? mwsep::cpu::integrate_fast(w->setup, 0) : mwsep::cpu::integrate_reference(w->setup);
    w->likelihood = big ? mwsep::cpu::likelihood_fast(w->setup, w->stars, w->integrals, 0)
                        : mwsep::cpu::likelihood_reference(w->setup, w->stars, w->integrals);
    return c[name] = w;
}

void record(const std::string& variant, const std::string& unit, bool capped, bool soa, double integral_diff,
            double integral_tol, double like_diff, double like_tol) {
    const char* dir = std::getenv("MWSEP_GPU_RESULTS");
    if (!dir) return;
    const auto path = std::filesystem::path(dir) / "gpu_correctness.csv";
    const bool fresh = !std::filesystem::exists(path);
    std::ofstream out(path, std::ios::app);
    if (fresh)
        out << "variant,work_unit,register_cap,star_layout,integral_rel_diff,integral_tolerance,likelihood_rel_diff,"
               "tolerance,max_rel_diff,pass\n";
    const bool pass = integral_diff <= integral_tol && like_diff <= like_tol;
    char row[320];
    std::snprintf(row, sizeof row, "%s,%s,%s,%s,%.3e,%.0e,%.3e,%.0e,%.3e,%s\n", variant.c_str(), unit.c_str(),
                  capped ? "48" : "none", soa ? "soa" : "aos", integral_diff, integral_tol, like_diff, like_tol,
                  std::max(integral_diff, like_diff), pass ? "true" : "false");
    out << row;
}

struct Case {
    std::string variant;
    std::string unit;
    bool capped;
    bool soa;
};

/// Readable test parameters in test listings and messages.
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.variant << " on " << c.unit << (c.capped ? " (48 registers)" : "") << (c.soa ? "" : " (AoS stars)");
}

class GpuVariant : public testing::TestWithParam<Case> {};

TEST_P(GpuVariant, MatchesCpu) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU correctness NOT checked (run make test-gpu on a GPU)";
    const Case& c = GetParam();
    const auto w = load(c.unit);
    const auto& v = mwsep::cuda::find_variant(c.variant);
    mwsep::cuda::LaunchOptions launch;
    launch.register_cap = c.capped;
    const auto g = mwsep::cuda::evaluate(w->setup, w->stars, c.variant, -1, launch, c.soa);
    double worst = relative_difference(g.integrals.background, w->integrals.background);
    for (std::size_t s = 0; s < w->integrals.streams.size(); ++s)
        worst = std::max(worst, relative_difference(g.integrals.streams[s], w->integrals.streams[s]));
    const double like = relative_difference(g.likelihood.likelihood, w->likelihood.likelihood);
    const double integral_tol = v.kernels.double_precision ? 1e-12 : 1e-4;
    const double like_tol = v.kernels.double_precision ? 1e-12 : 1e-5;
    record(c.variant, c.unit, c.capped, c.soa, worst, integral_tol, like, like_tol);
    EXPECT_LE(worst, integral_tol) << "integrals";
    EXPECT_LE(like, like_tol) << "likelihood " << g.likelihood.likelihood << " vs " << w->likelihood.likelihood;
}

std::vector<Case> cases() {
    std::vector<Case> out;
    const std::vector<std::string> units = {"tiny", "2s-small", "3s-small", "oracle:small_test11", "oracle:stripe20_reduced",
                                            "oracle:stripe20_1000stars", "oracle:stripe86_cut_reduced"};
    for (const auto& v : mwsep::cuda::variants())
        for (const auto& u : units) out.push_back({v.name, u, false, true});
    for (const auto& v : mwsep::cuda::variants())
        if (v.family->has_capped_build()) out.push_back({v.name, "oracle:stripe20_reduced", true, true});
    out.push_back({"shared-fast-unrolled-f64", "oracle:stripe20_reduced", false, false});
    out.push_back({"shared-fast-unrolled-f32", "oracle:stripe20_reduced", false, false});
    return out;
}

std::string label(const testing::TestParamInfo<Case>& info) {
    std::string s = info.param.variant + "_" + info.param.unit + (info.param.capped ? "_cap48" : "") +
                    (info.param.soa ? "" : "_aos");
    for (char& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(All, GpuVariant, testing::ValuesIn(cases()), label);

// The modern kernels reduce on the device in a fixed order: the result does not depend on the block size.
TEST(GpuModern, ResultIndependentOfLaunchConfiguration) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto w = load("2s-small");
    mwsep::cuda::LaunchOptions small, large;
    small.threads_per_block = 64;
    large.threads_per_block = 256;
    for (const char* v : {"modern-f64", "modern-f32"}) {
        const auto a = mwsep::cuda::evaluate(w->setup, w->stars, v, -1, small);
        const auto b = mwsep::cuda::evaluate(w->setup, w->stars, v, -1, large);
        EXPECT_LE(relative_difference(a.integrals.background, b.integrals.background), 1e-14) << v;
        for (std::size_t s = 0; s < a.integrals.streams.size(); ++s)
            EXPECT_LE(relative_difference(a.integrals.streams[s], b.integrals.streams[s]), 1e-14) << v;
    }
}

// Splitting the mu range into slices (one per GPU on a multi-GPU host; dealt round-robin to the devices
// there are) returns the same chunk sums, added in the same order: the integrals are bit-identical for any
// slice count, including more slices than devices and slices that hold no cell.
TEST(GpuModern, ResultIdenticalForAnySliceCount) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto w = load("2s-small");
    mwsep::cuda::LaunchOptions one;
    one.slices = 1;
    const auto reference = mwsep::cuda::evaluate(w->setup, w->stars, "modern-f64", -1, one);
    for (int slices : {2, 3, 7, 64}) {
        mwsep::cuda::LaunchOptions split;
        split.slices = slices;
        const auto r = mwsep::cuda::evaluate(w->setup, w->stars, "modern-f64", -1, split);
        EXPECT_EQ(r.integrals.background, reference.integrals.background) << slices << " slices";
        for (std::size_t s = 0; s < r.integrals.streams.size(); ++s)
            EXPECT_EQ(r.integrals.streams[s], reference.integrals.streams[s]) << slices << " slices";
        EXPECT_EQ(r.likelihood.likelihood, reference.likelihood.likelihood) << slices << " slices";
    }
    mwsep::cuda::LaunchOptions too_many;
    too_many.slices = 1025;
    EXPECT_THROW(mwsep::cuda::evaluate(w->setup, w->stars, "modern-f64", -1, too_many), mwsep::cuda::CudaError);
}

/// The lean variants (lean.cu): the modern family's double-precision variants other than modern-f64.
std::vector<std::string> lean_variants() {
    std::vector<std::string> out;
    for (const auto& v : mwsep::cuda::variants())
        if (v.kernels.axes.family == "modern" && !v.kernels.axes.memory.empty()) out.push_back(v.name);
    return out;
}

/// Relative difference, 0 where both are 0.
double lean_rel(double a, double b) { return a == b ? 0.0 : std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b)); }

// The lean variants compute modern-f64's sum: modern-rw-f64 bit for bit (the same operations), the others
// within 1e-14 relative on every integral (other roundings of the exponential, finer skipping within the
// same 2^-60 bound), on every work unit including the large ones, and on the tiny unit with its first stream
// narrowed to sigma = 0.02 kpc, whose exponents leave the lean exponentials' domain on part of the cells (the
// guarded loop; checked here on the host) while its terms near the axis stay far above 0.
TEST(GpuLean, SameSumAsModernOnEveryUnit) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto lean = lean_variants();
    ASSERT_GE(lean.size(), 5u);
    for (const std::string unit : {"tiny", "2s-small", "3s-small", "2s-large", "3s-large", "stripe11-large", "narrow"}) {
        const auto ap = mwsep::model::read_astronomy_parameters(workunit(unit == "narrow" ? "tiny" : unit).string());
        auto setup = mwsep::geometry::make_setup(mwsep::model::build_model(ap));
        if (unit == "narrow") {
            // sigma chosen so that the median cell's line of sight reaches the edge of the lean domain: about
            // half of the cells leave it at an end of their line of sight (the guarded loop), half do not.
            const auto& t = setup.areas[0];
            const auto los = mwsep::geometry::fold_line_of_sight(t);
            auto& g = setup.streams[0];
            std::vector<double> far;  // per cell: the largest squared distance from the axis, at an end
            for (std::size_t p = 0; p < t.cells(); ++p) {
                const auto d2 = mwsep::math::stream_exponent_quadratic(t.cosb[p] * t.cosl[p], t.cosb[p] * t.sinl[p],
                                                                       t.sinb[p], g.centre, g.axis, 1.0);
                far.push_back(-std::min(d2(los.r_min), d2(los.r_max)));
            }
            std::vector<double> sorted = far;
            std::sort(sorted.begin(), sorted.end());
            g.inv_two_sigma_sq = -0.5 * mwsep::math::lean_exp_domain /
                                 (mwsep::math::ExpTable8::steps_per_unit * sorted[sorted.size() / 2]);
            int outside = 0;
            for (double d2 : far)
                outside += -d2 * g.inv_two_sigma_sq * mwsep::math::ExpTable8::steps_per_unit < 0.5 * mwsep::math::lean_exp_domain;
            ASSERT_GT(outside, 0) << "no cell takes the guarded loop";
            ASSERT_LT(outside, static_cast<int>(t.cells())) << "every cell takes the guarded loop";
        }
        mwsep::generate::Options o;
        o.count = 2000;
        o.seed = 3;
        o.envelope_mu = 80, o.envelope_nu = 8, o.envelope_r = 35;
        const auto stars = mwsep::generate::generate_catalogue(setup, o).stars;
        const auto ref = mwsep::cuda::evaluate(setup, stars, "modern-f64", -1);
        ASSERT_GT(ref.integrals.streams.at(0), 0.0) << unit;
        for (const auto& v : lean) {
            const auto r = mwsep::cuda::evaluate(setup, stars, v, -1);
            const double tol = v == "modern-rw-f64" ? 0.0 : 1e-14;
            EXPECT_LE(lean_rel(r.integrals.background, ref.integrals.background), tol) << v << " on " << unit;
            for (std::size_t s = 0; s < ref.integrals.streams.size(); ++s)
                EXPECT_LE(lean_rel(r.integrals.streams[s], ref.integrals.streams[s]), tol)
                    << v << " on " << unit << ", stream " << s << ": " << r.integrals.streams[s] << " against "
                    << ref.integrals.streams[s];
            EXPECT_LE(lean_rel(r.likelihood.likelihood, ref.likelihood.likelihood), tol == 0 ? 0.0 : 1e-13) << v << " on " << unit;
        }
    }
}

// mwsep run makes the integral's host tables and the star table while the devices start
// (cuda::prepare_on_host), and evaluate() uploads them: every result is bit-identical to an evaluation that
// computes them itself, for the modern family (whose host tables move), the compressed family (whose lines of
// sight, ladders of rules and skip thresholds move) and a thesis variant (only the star table moves), in both
// precisions.
TEST(GpuHostWork, TablesMadeEarlyGiveTheSameBits) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto w = load("2s-small");
    for (const std::string v : {"modern-f64", "modern-f32", "compressed-f64", "shared-fast-unrolled-f64"}) {
        const auto plain = mwsep::cuda::evaluate(w->setup, w->stars, v, -1);
        auto host = mwsep::cuda::prepare_on_host(w->setup, w->stars, v, true);
        ASSERT_FALSE(host.failed) << v;
        ASSERT_TRUE(host.stars.has_value()) << v;
        EXPECT_EQ(host.integral != nullptr, v.rfind("modern-", 0) == 0 || v.rfind("compressed-", 0) == 0) << v;
        const auto early = mwsep::cuda::evaluate(w->setup, w->stars, v, -1, {}, true, nullptr, &host);
        EXPECT_EQ(early.integrals.background, plain.integrals.background) << v;
        ASSERT_EQ(early.integrals.streams.size(), plain.integrals.streams.size()) << v;
        for (std::size_t s = 0; s < plain.integrals.streams.size(); ++s) {
            EXPECT_EQ(early.integrals.streams[s], plain.integrals.streams[s]) << v << " stream " << s;
            EXPECT_EQ(early.likelihood.stream_only[s], plain.likelihood.stream_only[s]) << v << " stream " << s;
        }
        EXPECT_EQ(early.likelihood.likelihood, plain.likelihood.likelihood) << v;
        EXPECT_EQ(early.likelihood.background_likelihood, plain.likelihood.background_likelihood) << v;
        EXPECT_EQ(early.likelihood.zero_probability_stars, plain.likelihood.zero_probability_stars) << v;
    }
}

// The star table built on the host (no GPU needed): every star's sin b, sin l, cos b, cos l and r where the
// likelihood kernel reads them, in both layouts and precisions, and zeros in the padding of the SoA blocks.
TEST(StarTable, EveryStarInItsPlaceInBothLayoutsAndPrecisions) {
    mwsep::model::StarCatalogue stars;
    const double l[] = {0.0, 359.999999, 181.25, 45.0, 270.5};
    const double b[] = {-90.0, 89.5, 0.0, -12.345678, 33.3};
    const double r[] = {0.5, 100.0, 7.25, 31.0, 2.0};
    for (int n = 0; n < 5; ++n) stars.l.push_back(l[n]), stars.b.push_back(b[n]), stars.r.push_back(r[n]);
    for (const bool soa : {true, false}) {
        const auto t64 = mwsep::cuda::make_star_table(stars, true, soa);
        const auto t32 = mwsep::cuda::make_star_table(stars, false, soa);
        ASSERT_EQ(t64.count, 5);
        ASSERT_EQ(t64.stride, 64);
        ASSERT_EQ(t64.f64.size(), 5u * 64u);
        ASSERT_TRUE(t64.f32.empty());
        ASSERT_EQ(t32.f32.size(), 5u * 64u);
        ASSERT_TRUE(t32.f64.empty());
        for (int n = 0; n < 5; ++n) {
            // Independent of the table's code: the angles in radians with the library's sin and cos.
            const double lr = l[n] * (M_PI / 180), br = b[n] * (M_PI / 180);
            const double want[5] = {std::sin(br), std::sin(lr), std::cos(br), std::cos(lr), r[n]};
            for (int i = 0; i < 5; ++i) {
                const std::size_t at = soa ? static_cast<std::size_t>(i) * 64 + n : static_cast<std::size_t>(n) * 5 + i;
                EXPECT_NEAR(t64.f64[at], want[i], 1e-15) << "star " << n << " field " << i << (soa ? " soa" : " aos");
                EXPECT_EQ(t32.f32[at], static_cast<float>(t64.f64[at])) << "star " << n << " field " << i;
            }
        }
        if (soa) {
            for (int i = 0; i < 5; ++i) {
                for (int n = 5; n < 64; ++n) EXPECT_EQ(t64.f64[static_cast<std::size_t>(i) * 64 + n], 0.0);
            }
        }
    }
}

// A lean variant refuses blocks larger than its launch bounds with a clear error, instead of a failed launch.
TEST(GpuLean, RefusesBlocksAboveItsLaunchBounds) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto w = load("tiny");
    mwsep::cuda::LaunchOptions big;
    big.threads_per_block = 512;
    for (const auto& v : lean_variants())
        EXPECT_THROW(mwsep::cuda::evaluate(w->setup, w->stars, v, -1, big), mwsep::cuda::CudaError) << v;
}

// The chunk reduction after every modern and lean launch: each chunk's compensated sum and compensation are
// the bits of adding its cells' values (every piece of each cell, cell by cell) one at a time on the host, for
// grids that fill the chunks unevenly and a slice of the chunks (the others keep what was there).
TEST(GpuModernReduction, ChunkSumsAreTheHostsNeumaierSumsInCellOrder) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    using mwsep::cuda::reduction_chunks;
    for (const auto& [cells, pieces, streams, first_chunk, last_chunk] :
         std::vector<std::tuple<int, int, int, int, int>>{{256000, 5, 3, 0, reduction_chunks},
                                                          {5000, 3, 2, 0, reduction_chunks},
                                                          {777, 1, 1, 0, reduction_chunks},
                                                          {100003, 4, 4, 300, 700}}) {
        const int padded = (cells + 63) / 64 * 64;
        const std::size_t n_values = static_cast<std::size_t>(padded) * pieces * (1 + streams);
        std::vector<double> values(n_values);
        std::uint64_t state = 12345u + static_cast<std::uint64_t>(cells);
        for (auto& v : values) {  // positive and negative values over twelve orders of magnitude
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const double u = static_cast<double>(state >> 11) * 0x1.0p-53;
            v = std::ldexp(u - 0.25, static_cast<int>(state % 40) - 20);
        }
        mwsep::cuda::DeviceMemory mem;
        mwsep::cuda::ModernArea area;
        area.cells = cells, area.padded = padded, area.r_pieces = pieces;
        area.first_chunk = first_chunk, area.last_chunk = last_chunk;
        area.f64.cell_out = mem.upload(values, "upload the values");
        const std::size_t n_partials = static_cast<std::size_t>(reduction_chunks) * 2 * (1 + streams);
        std::vector<double> sentinel(n_partials, -7.0);
        area.partials = mem.upload(sentinel, "upload the sentinels");
        mwsep::cuda::launch_modern_reduction(area, streams, nullptr);
        mwsep::cuda::check(cudaDeviceSynchronize(), "run the reduction");
        std::vector<double> got(n_partials);
        mwsep::cuda::check(cudaMemcpy(got.data(), area.partials, sizeof(double) * n_partials, cudaMemcpyDeviceToHost),
                           "download the chunk sums");
        const int chunk = mwsep::cuda::chunk_cells(cells);
        for (int c = 0; c <= streams; ++c)
            for (int i = 0; i < reduction_chunks; ++i) {
                const std::size_t at = (static_cast<std::size_t>(c) * reduction_chunks + i) * 2;
                if (i < first_chunk || i >= last_chunk) {
                    ASSERT_EQ(got[at], -7.0) << "a chunk outside the slice was written";
                    continue;
                }
                mwsep::math::NeumaierSum sum;
                for (int p = i * chunk; p < std::min(cells, (i + 1) * chunk); ++p)
                    for (int piece = 0; piece < pieces; ++piece)
                        sum.add(values[(static_cast<std::size_t>(c) * pieces + piece) * padded + p]);
                ASSERT_EQ(std::bit_cast<std::uint64_t>(got[at]), std::bit_cast<std::uint64_t>(sum.running_sum()))
                    << cells << " cells, component " << c << ", chunk " << i;
                ASSERT_EQ(std::bit_cast<std::uint64_t>(got[at + 1]), std::bit_cast<std::uint64_t>(sum.compensation()))
                    << cells << " cells, component " << c << ", chunk " << i;
            }
    }
}

// A failure while making the host work is kept, not thrown, and comes back with its message when rethrown.
TEST(GpuHostWork, AFailureIsKeptWithItsMessage) {
    mwsep::model::StarCatalogue stars;
    stars.l = {10}, stars.b = {20}, stars.r = {3};
    const auto w = mwsep::geometry::make_setup(mwsep::model::build_model(
        mwsep::model::read_astronomy_parameters(workunit("tiny").string())));
    auto host = mwsep::cuda::prepare_on_host(w, stars, "no-such-variant", true);
    ASSERT_TRUE(host.failed);
    EXPECT_EQ(host.integral, nullptr);
    EXPECT_FALSE(host.stars.has_value());
    try {
        std::rethrow_exception(host.failed);
        ADD_FAILURE() << "nothing thrown";
    } catch (const harness::UnknownName& e) {
        EXPECT_NE(std::string(e.what()).find("'no-such-variant'"), std::string::npos) << e.what();
    }
}

// The device memory an evaluation reports (mwsep run --json device_memory, experiment device_memory): the
// stars take at least their three coordinates and the per-star outputs (one log-probability and 1 + S
// densities) in the kernel's precision, and at most a table of sixteen values a star, those outputs and a few
// allocation granules; the integral's buffers take some memory and less than the device has.
TEST(GpuDeviceMemory, AnEvaluationReportsWhatItsBuffersTake) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto w = load("2s-small");
    const double stars = static_cast<double>(w->stars.size());
    const double per_star_outputs = 1 + 1 + static_cast<double>(w->setup.streams.size());
    std::size_t free = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    for (const char* v : {"modern-f64", "modern-f32"}) {
        const double real = std::string(v).ends_with("f64") ? 8 : 4;
        const auto r = mwsep::cuda::evaluate(w->setup, w->stars, v, 0);
        EXPECT_GE(double(r.star_device_bytes), stars * (3 + per_star_outputs) * real) << v;
        EXPECT_LE(double(r.star_device_bytes), stars * (16 + per_star_outputs) * real + 8.0 * (1 << 20)) << v;
        EXPECT_GT(r.integral_device_bytes, 0u) << v;
        EXPECT_LT(r.integral_device_bytes, total) << v;
    }
}

// The pieces of a line of sight depend on the grid alone: enough work items (2^20) for many waves of
// blocks, never fewer than 32 r bins a piece, never fewer than one piece. (No GPU needed.)
TEST(GpuModern, LineOfSightPiecesFollowTheGrid) {
    EXPECT_EQ(mwsep::cuda::modern_r_pieces(1600 * 160, 700), 5);  // large units: ceil(2^20 / 256000)
    EXPECT_EQ(mwsep::cuda::modern_r_pieces(800 * 80, 350), 10);   // small units: capped at 350 / 32
    EXPECT_EQ(mwsep::cuda::modern_r_pieces(40 * 8, 20), 1);       // tiny: fewer than 64 bins
    EXPECT_EQ(mwsep::cuda::modern_r_pieces(1 << 21, 700), 1);     // already 2^21 cells
}

// The background term's refinements (math/refine.hpp) assume seeds good to 2^-19: the hardware's must be.
TEST(GpuMath, HardwareSeedsMeetTheRefinementsAssumption) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto e = mwsep::cuda::measure_seed_errors(1 << 22);
    std::cout << "seed errors over 2^22 arguments: rsqrt " << e.rsqrt << " (2^" << std::log2(e.rsqrt)
              << "), reciprocal " << e.reciprocal << " (2^" << std::log2(e.reciprocal) << ")\n";
    EXPECT_GT(e.rsqrt, 0.0);  // an approximation, measured: not exact everywhere
    EXPECT_LT(e.rsqrt, mwsep::math::seed_relative_error);
    EXPECT_LT(e.reciprocal, mwsep::math::seed_relative_error);
}

// A stream centre so far away that its squares overflow gives a NaN exponent: every variant must carry the
// NaN into that stream's integral and refuse it, as both CPU integrators do, never clamp it to exp(0) = 1.
TEST(GpuErrors, ANaNStreamExponentIsRefusedByEveryVariant) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto ap = mwsep::model::read_astronomy_parameters(workunit("tiny").string());
    ASSERT_FALSE(ap.streams.empty());
    // The readers refuse such a distance with its file, line and key; planted after them, in the validated
    // model, it reaches the kernels, whose non-finite result must still be refused.
    auto model = mwsep::model::build_model(ap);
    ASSERT_FALSE(model.streams.empty());
    model.streams.front().r = 1e200;  // r of the stream centre, kpc
    const auto setup = mwsep::geometry::make_setup(model);
    mwsep::model::StarCatalogue stars;
    stars.l = {16.5, 16.8};
    stars.b = {75.4, 75.1};
    stars.r = {10.0, 20.0};
    for (const auto& v : mwsep::cuda::variants()) {
        try {
            const auto r = mwsep::cuda::evaluate(setup, stars, v.name, -1);
            ADD_FAILURE() << v.name << ": returned stream integral " << r.integrals.streams.front() << " and likelihood "
                          << r.likelihood.likelihood;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("not a positive finite number"), std::string::npos) << v.name << ": " << e.what();
        }
    }
}

TEST(GpuErrors, UnknownVariantIsAClearError) {
    EXPECT_THROW(mwsep::cuda::find_variant("shared-fast-unrolled-f16"), harness::UnknownName);
}

TEST(GpuResources, EveryVariantHasACompilerReport) {
    // The report tables need registers and spills of every variant, capped and uncapped, for S = 0..4:
    // each instance's identity names exactly one kernel of the compiler's report.
    const auto compiled = mwsep::cuda::read_resource_report(MWSEP_RESOURCE_REPORT);
    std::set<std::string> capped_kernels;
    for (const auto& v : mwsep::cuda::variants())
        for (bool capped : {false, true})
            for (int s = 0; s <= (v.kernels.unrolled ? mwsep::cuda::max_streams : 0) && (!capped || v.family->has_capped_build()); ++s) {
                const std::string identity = v.kernels.identity(s, capped);
                ASSERT_FALSE(identity.empty()) << v.name << " S=" << s << (capped ? " capped" : "");
                int matches = 0;
                for (const auto& k : compiled)
                    if (k.identity == identity && k.registers > 0 && k.spill_stores >= 0) ++matches;
                EXPECT_EQ(matches, 1) << v.name << " S=" << s << (capped ? " capped" : "") << ": " << identity;
                if (capped) capped_kernels.insert(identity);
            }
    // The cap is real: no capped kernel uses more than 48 registers.
    EXPECT_FALSE(capped_kernels.empty());
    for (const auto& k : compiled)
        if (capped_kernels.count(k.identity)) {
            EXPECT_LE(k.registers, 48) << k.identity;
        }
}

// The identity of a variant's kernel is built from its policy types, so two variants never share one.
TEST(GpuResources, KernelIdentitiesAreDistinct) {
    std::set<std::string> seen;
    for (const auto& v : mwsep::cuda::variants())
        for (int s = 0; s <= (v.kernels.unrolled ? mwsep::cuda::max_streams : 0); ++s)
            EXPECT_TRUE(seen.insert(v.kernels.identity(s, false)).second) << v.name << " S=" << s;
}

// `all` and patterns select the exact-sum variants only; the compressed quadrature, a different algorithm,
// is selected by its own name alone (so that it never stands in a table of kernels as one of them).
TEST(GpuResources, AllAndPatternsLeaveTheCompressedQuadratureOut) {
    const auto names = [](const std::vector<const mwsep::cuda::VariantInfo*>& chosen) {
        std::set<std::string> out;
        for (const auto* v : chosen) out.insert(v->name);
        return out;
    };
    const auto all = names(mwsep::cuda::select_variants("all"));
    EXPECT_EQ(all.size() + 1, mwsep::cuda::variants().size());
    EXPECT_EQ(all.count("compressed-f64"), 0u);
    EXPECT_EQ(names(mwsep::cuda::select_variants("*-f64")).count("compressed-f64"), 0u);
    EXPECT_EQ(names(mwsep::cuda::select_variants("modern-f64,compressed-f64")),
              (std::set<std::string>{"modern-f64", "compressed-f64"}));
}

// The thesis's variants are the full product of their four axes, each combination once, and each name is
// composed from its axes; the count follows from the axes' values, whatever families are registered.
TEST(GpuResources, ThesisVariantsAreTheProductOfTheirAxes) {
    std::set<std::string> memories, divsqrts, loops, precisions, modern_precisions, combinations;
    std::size_t thesis = 0, modern = 0, compressed = 0;
    for (const auto& v : mwsep::cuda::variants()) {
        const auto& a = v.kernels.axes;
        if (a.family == "modern") {
            ++modern;
            if (a.memory.empty()) {  // modern-f64 and modern-f32
                modern_precisions.insert(a.precision);
                EXPECT_EQ(v.name, "modern-" + a.precision);
            } else {  // a lean variant: its name lists the policies that differ from modern-f64's
                EXPECT_EQ(a.precision, "f64") << v.name;
                std::string composed = "modern";
                if (a.memory == "rw") composed += "-rw";
                if (a.divsqrt != "table") composed += "-" + a.divsqrt;
                if (a.loop != "bins") composed += "-" + a.loop;
                EXPECT_EQ(v.name, composed + "-f64");
            }
            continue;
        }
        if (a.family == "compressed") {  // a different algorithm, one variant per precision
            ++compressed;
            EXPECT_EQ(v.name, "compressed-" + a.precision);
            continue;
        }
        ASSERT_EQ(a.family, "thesis") << v.name;
        ++thesis;
        memories.insert(a.memory);
        divsqrts.insert(a.divsqrt);
        loops.insert(a.loop);
        precisions.insert(a.precision);
        const std::string composed = a.memory + "-" + a.divsqrt + "-" + a.loop + "-" + a.precision;
        EXPECT_EQ(v.name, composed);
        EXPECT_TRUE(combinations.insert(composed).second) << composed << " twice";
    }
    EXPECT_EQ(divsqrts, (std::set<std::string>{"ieee", "fast"}));
    EXPECT_EQ(loops, (std::set<std::string>{"loop", "unrolled"}));
    EXPECT_EQ(precisions, (std::set<std::string>{"f64", "f32"}));
    EXPECT_EQ(thesis, memories.size() * divsqrts.size() * loops.size() * precisions.size());
    EXPECT_EQ(modern_precisions, (std::set<std::string>{"f64", "f32"}));
    EXPECT_GE(modern, modern_precisions.size() + lean_variants().size());
    EXPECT_EQ(mwsep::cuda::variants().size(), thesis + modern + compressed);
}

}  // namespace

// The GT200's shared-memory limit emulated (thesis 4.3; mwsep bench --blocks-per-sm): the ballast changes how many
// blocks share an SM, not what a block computes, so the thesis kernels' integrals are bit-identical with and
// without it; and a residency the kernel cannot reach is refused before any launch.
TEST(GpuThesis, ImposedResidencyChangesNoResult) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const auto w = load("3s-small");
    mwsep::cuda::LaunchOptions whole, four;
    whole.threads_per_block = four.threads_per_block = 128;
    four.blocks_per_sm = 4;
    for (const char* v : {"shared-fast-loop-f64", "shared-fast-unrolled-f64"}) {
        const auto a = mwsep::cuda::evaluate(w->setup, w->stars, v, -1, whole);
        const auto b = mwsep::cuda::evaluate(w->setup, w->stars, v, -1, four);
        EXPECT_EQ(a.integrals.background, b.integrals.background) << v;
        for (std::size_t s = 0; s < a.integrals.streams.size(); ++s) EXPECT_EQ(a.integrals.streams[s], b.integrals.streams[s]) << v;
        EXPECT_EQ(a.likelihood.likelihood, b.likelihood.likelihood) << v;
    }
    mwsep::cuda::LaunchOptions impossible;
    impossible.threads_per_block = 1024;
    impossible.blocks_per_sm = 8;  // 8 x 1024 threads exceed any SM of today
    EXPECT_THROW(mwsep::cuda::evaluate(w->setup, w->stars, "shared-fast-unrolled-f64", -1, impossible), std::exception);
}
