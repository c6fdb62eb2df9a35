// Every GPU variant against the FP64 CPU reference, on every output of the small inputs, within the
// variant's stated tolerance; and the launch settings (block size, chunk) change no result beyond it.
// Without a GPU every test skips with a visible message. With KIRK_HWU_GPU_RESULTS set to a folder, every
// comparison is also written there as gpu_correctness.csv.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "gpu_variants.hpp"
#include "kirk_hwu/reference.hpp"
#include "kirk_hwu/subsets.hpp"
#include "gpu_support.hpp"

using namespace kirk_hwu;

namespace {

using testsupport::have_gpu;

int cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

/// The FP64 reference of every output of a problem's input of @p size, computed once.
const std::vector<double>& reference_of(gpu::Problem p, Size size) {
    static std::map<std::pair<gpu::Problem, Size>, std::vector<double>> cache;
    auto key = std::pair{p, size};
    if (!cache.count(key)) {
        if (p == gpu::Problem::coulomb) {
            const CoulombInput in = make_coulomb_input(size);
            cache[key] = coulomb_reference(in, spread_subset(in.points(), in.points()), cores());
        } else {
            const MriInput in = make_mri_input(size);
            cache[key] = mri_reference(in, p == gpu::Problem::mri_q ? MriOutput::q : MriOutput::fhd,
                                       spread_subset(in.voxels(), in.voxels()), cores());
        }
    }
    return cache[key];
}

/// The variant's whole output for the input of @p size.
std::vector<double> run_variant(const gpu::Variant& v, Size size, const gpu::LaunchSettings& ls) {
    if (v.coulomb) {
        gpu::CoulombDevice d(make_coulomb_input(size));
        v.coulomb(d, ls, nullptr);
        return d.download({});
    }
    gpu::MriDevice d(make_mri_input(size), v.problem == gpu::Problem::mri_q ? MriOutput::q : MriOutput::fhd);
    v.mri(d, ls, nullptr);
    return d.download({}, v.fp64);
}

void record(const std::string& variant, const std::string& setting, const ErrorStats& e, double tol, bool pass) {
    const char* dir = std::getenv("KIRK_HWU_GPU_RESULTS");
    if (!dir) return;
    const auto path = std::filesystem::path(dir) / "gpu_correctness.csv";
    const bool fresh = !std::filesystem::exists(path);
    std::ofstream out(path, std::ios::app);
    if (fresh) out << "variant,setting,max_abs_err,max_rel_err,rel_l2_err,tolerance,pass\n";
    out << variant << "," << setting << "," << e.max_abs << "," << e.max_rel << "," << e.rel_l2 << "," << tol << ","
        << (pass ? "true" : "false") << "\n";
}

void check_variant(const gpu::Variant& v, Size size, const gpu::LaunchSettings& ls, const std::string& setting) {
    const ErrorStats e = compare(reference_of(v.problem, size), run_variant(v, size, ls));
    const bool pass = e.rel_l2 <= v.tolerance && e.max_rel <= v.tolerance;
    record(v.name, setting, e, v.tolerance, pass);
    EXPECT_LE(e.rel_l2, v.tolerance) << v.name << " " << setting;
    EXPECT_LE(e.max_rel, v.tolerance) << v.name << " " << setting;
}

class EveryVariant : public testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(EveryVariant, MatchesTheFp64ReferenceOnTheSmallInput) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU variants NOT checked (run make test-gpu on a GPU)";
    check_variant(gpu::variants().find(GetParam()), Size::small, {}, "small");
}

TEST_P(EveryVariant, MatchesTheReferenceWithOtherBlockAndChunkSizes) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: GPU variants NOT checked";
    // 128 threads per block and chunks of 64, which leave a remainder of the tiny inputs' 300 samples and 100 atoms.
    gpu::LaunchSettings ls;
    ls.threads_per_block = 128;
    ls.chunk = 64;
    check_variant(gpu::variants().find(GetParam()), Size::tiny, ls, "tiny-128-threads-chunk-64");
}

INSTANTIATE_TEST_SUITE_P(Gpu, EveryVariant, testing::ValuesIn([] {
                             std::vector<std::string> names;
                             for (const auto& v : gpu::variants().entries()) names.push_back(v.name);
                             return names;
                         }()),
                         [](const testing::TestParamInfo<std::string>& i) {
                             std::string s = i.param;
                             for (char& c : s)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return s;
                         });

TEST(GpuVariants, EveryProblemHasTheDocumentsStepsInOrder) {
    // A registry check that needs no GPU: the ladders are complete and in the documents' order.
    std::vector<std::string> q, dcs;
    for (const auto& v : gpu::variants_of(gpu::Problem::mri_q))
        if (v.step[0] == 'F') q.push_back(v.step);
    for (const auto& v : gpu::variants_of(gpu::Problem::coulomb))
        if (v.step[0] == 'D') dcs.push_back(v.step);
    EXPECT_EQ(q, (std::vector<std::string>{"F0", "F3", "F4", "F5", "F6", "F7", "F8"}));
    EXPECT_EQ(dcs, (std::vector<std::string>{"D0", "D1", "D2", "D3", "D4"}));
}

// The increased resolutions (kirk_hwu split): the image in subsets of voxels, each with its own device copy, gives
// every voxel the output of one copy of the whole image, bit for bit (a voxel's sum does not depend on the others).
TEST(GpuSplit, SubsetsGiveTheWholeImagesOutput) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    const MriInput whole = make_mri_input(Size::small);
    const gpu::Variant& v = gpu::variants().find("fhd-constaos-regs-sfu-u4-f32");
    gpu::MriDevice all(whole, MriOutput::fhd, false);
    v.mri(all, {}, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<double> expected = all.download({}, false);
    MriInput part = whole;
    for (const VoxelRange& r : voxel_subsets(whole.voxels(), 7)) {
        grid_positions(part, whole.grid, r);
        gpu::MriDevice device(part, MriOutput::fhd, false);
        v.mri(device, {}, nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const std::vector<double> got = device.download({}, false);
        for (std::size_t k = 0; k < r.count; ++k) {
            ASSERT_EQ(got[k], expected[r.first + k]) << "voxel " << r.first + k;
            ASSERT_EQ(got[r.count + k], expected[whole.voxels() + r.first + k]) << "voxel " << r.first + k;
        }
    }
}
