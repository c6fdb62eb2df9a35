// Every GPU variant of the paper's applications against the single-thread CPU on small inputs: the
// elimination bit for bit, the TPACF histograms, the RC5-72 search result and the Petri-net totals exactly.
// Without a GPU each test skips with a message. With RYOO_GPU_RESULTS set, each comparison is a row of
// gpu_correctness.csv (n: the input's size; max_error_ratio 0 for an exact match).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "harness/check.hpp"
#include "harness/csv.hpp"
#include "harness/device_memory.hpp"
#include "ryoo/applications.hpp"
#include "ryoo/cpu/elimination.hpp"
#include "ryoo/cpu/pns.hpp"
#include "ryoo/cpu/rc5.hpp"
#include "ryoo/cpu/tpacf.hpp"
#include "gpu_results.hpp"
#include "gpu_support.hpp"
#include "json_lite.hpp"
#include "test_support.hpp"

namespace ryoo {
namespace {

using harness::check;
using testsupport::have_gpu;

/// Records one exact comparison of @p checked values, @p wrong of them differing.
void record(const std::string& variant, long long n, long long checked, long long wrong) {
    if (auto* out = testing_support::results())
        out->row({variant, std::to_string(n), std::to_string(checked), wrong ? "inf" : "0", std::to_string(wrong),
                  wrong ? "false" : "true"});
}

TEST(RyooGpuApplications, EliminationStepsEqualTheCpuBitForBit) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the elimination variants were NOT checked";
    for (int n : {2, 37, 200}) {  // 37 and 200: not multiples of any block edge
        const LinearSystem original = dominant_system(n, 5);
        LinearSystem reference = original;
        eliminate_cpu(reference);
        for (const auto& v : elimination_variants().entries()) {
            harness::DeviceMemory m;
            float* a = m.upload(original.a, "upload the system");
            for (int k = 0; k + 1 < n; ++k) v.step(a, n, original.ld, k, nullptr);
            LinearSystem got = original;
            check(cudaMemcpy(got.a.data(), a, got.a.size() * sizeof(float), cudaMemcpyDeviceToHost), "download");
            long long wrong = 0;
            for (std::size_t i = 0; i < got.a.size(); ++i) wrong += std::memcmp(&got.a[i], &reference.a[i], sizeof(float)) != 0;
            EXPECT_EQ(wrong, 0) << v.name << " at n = " << n;
            EXPECT_LT(scaled_residual(original, back_substitute(got)), 16.0) << v.name;
            record(v.name, n, static_cast<long long>(got.a.size()), wrong);
        }
    }
}

TEST(RyooGpuApplications, TpacfHistogramsEqualTheCpu) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the TPACF variants were NOT checked";
    for (int points : {300, 700}) {  // neither a multiple of the 256-point tile
        const TpacfInput in = synthetic_sky(points, 2, 20, 8);
        const TpacfHistograms reference = tpacf_cpu(in);
        set_tpacf_edges(in.edge_cosines);
        const int slots = in.slots();
        std::vector<float4> packed;
        for (std::size_t i = 0; i < in.data.size() / 3; ++i) packed.push_back(make_float4(in.data[3 * i], in.data[3 * i + 1], in.data[3 * i + 2], 0));
        for (std::size_t i = 0; i < in.random.size() / 3; ++i)
            packed.push_back(make_float4(in.random[3 * i], in.random[3 * i + 1], in.random[3 * i + 2], 0));
        for (const auto& v : tpacf_variants().entries()) {
            const TpacfLaunch l = v.prepare();
            harness::DeviceMemory m;
            const float4* d = m.upload(packed, "upload the points");
            auto* h = m.allocate<unsigned long long>(static_cast<std::size_t>(slots) * 5, "allocate the histograms");
            check(cudaMemset(h, 0, sizeof(unsigned long long) * slots * 5), "clear the histograms");
            l.run(d, points, d, points, true, h, nullptr);
            for (int s = 0; s < 2; ++s) {
                const float4* r = d + static_cast<std::size_t>(points) * (s + 1);
                l.run(d, points, r, points, false, h + slots * (1 + s), nullptr);
                l.run(r, points, r, points, true, h + slots * (3 + s), nullptr);
            }
            std::vector<unsigned long long> got(static_cast<std::size_t>(slots) * 5);
            check(cudaMemcpy(got.data(), h, got.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "download");
            std::vector<std::uint64_t> want = reference.dd;
            want.insert(want.end(), reference.dr.begin(), reference.dr.end());
            want.insert(want.end(), reference.rr.begin(), reference.rr.end());
            long long wrong = 0;
            for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
            EXPECT_EQ(wrong, 0) << v.name << " with " << points << " points";
            record(v.name, points, static_cast<long long>(want.size()), wrong);
        }
    }
}

TEST(RyooGpuApplications, TheG80ResidencyIsImposedExactly) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: NOT checked";
    int checked = 0;
    for (const auto& v : tpacf_variants().entries()) {
        const TpacfLaunch l = v.prepare();
        if (!l.facts.imposed_blocks_per_sm) continue;
        int blocks = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, l.facts.function, l.facts.threads_per_block, l.facts.dynamic_smem),
              "compute the occupancy");
        EXPECT_EQ(blocks, l.facts.imposed_blocks_per_sm) << v.name;
        EXPECT_GE(l.facts.imposed_blocks_per_sm, 1) << v.name;
        EXPECT_LE(l.facts.imposed_blocks_per_sm, 3) << v.name;  // the G80's 768 threads in blocks of 256
        ++checked;
    }
    EXPECT_EQ(checked, 6);
}

TEST(RyooGpuApplications, Rc5SearchesFindWhatTheCpuFinds) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the RC5-72 variants were NOT checked";
    const Rc5Challenge c = rc5_challenge(11, 40000);
    const Rc5Result want = rc5_search_cpu(c, 0, 1 << 16);
    ASSERT_EQ(want, (Rc5Result{40000, 1}));
    for (const auto& v : rc5_variants().entries()) {
        harness::DeviceMemory m;
        auto* found = m.allocate<Rc5Found>(1, "allocate the result");
        for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 1 << 16}, {39999, 3}, {40001, 5000}}) {
            const Rc5Found none;
            check(cudaMemcpy(found, &none, sizeof none, cudaMemcpyHostToDevice), "reset");
            v.run(c, first, count, found, nullptr);
            Rc5Found got;
            check(cudaMemcpy(&got, found, sizeof got, cudaMemcpyDeviceToHost), "download");
            const Rc5Result cpu = rc5_search_cpu(c, first, count);
            const bool same = got.matches == cpu.matches && (cpu.matches == 0 || got.first == cpu.first);
            EXPECT_TRUE(same) << v.name << " over " << first << " + " << count;
            record(v.name, static_cast<long long>(count), 2, same ? 0 : 1);
        }
    }
}

TEST(RyooGpuApplications, PetriNetTotalsEqualTheCpuAtEveryCap) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the Petri-net variants were NOT checked";
    PnsProblem p;
    p.edge = 6;
    p.steps = 200;
    p.trajectories = 1000;  // not a multiple of the block
    const PnsResult want = pns_cpu(p);
    const int places = p.places();
    for (const auto& v : pns_variants().entries()) {
        for (std::uint32_t cap : {1000u, 333u, 128u}) {
            harness::DeviceMemory m;
            auto* state = m.allocate<std::uint8_t>(static_cast<std::size_t>(places) * cap, "allocate the markings");
            auto* firings = m.allocate<std::uint32_t>(cap, "allocate the firings");
            PnsResult got;
            std::vector<std::uint8_t> hs(static_cast<std::size_t>(places) * cap);
            std::vector<std::uint32_t> hf(cap);
            for (std::uint32_t first = 0; first < p.trajectories; first += cap) {
                const std::uint32_t count = std::min(cap, p.trajectories - first);
                v.run(p.edge, p.seed, p.steps, first, count, state, firings, nullptr);
                check(cudaMemcpy(hs.data(), state, static_cast<std::size_t>(places) * count, cudaMemcpyDeviceToHost), "download");
                check(cudaMemcpy(hf.data(), firings, sizeof(std::uint32_t) * count, cudaMemcpyDeviceToHost), "download");
                pns_accumulate(got, hs.data(), hf.data(), count, places);
            }
            const bool same = got == want;
            EXPECT_TRUE(same) << v.name << " with " << cap << " resident trajectories";
            record(v.name + "-cap" + std::to_string(cap), p.trajectories, places + 1, same ? 0 : 1);
        }
    }
}

TEST(RyooGpuApplications, SmallInputsGiveTheStoredIndependentOutputs) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device on this machine: the GPU variants were NOT compared with data/ryoo/small_expected.json";
    const testjson::Value e =
        testjson::Parser(testsupport::read_text(testsupport::source_dir() / "data" / "ryoo" / "small_expected.json")).parse();
    const auto counts = [](const testjson::Value& v) {
        std::vector<unsigned long long> out;
        for (double x : v.numbers()) out.push_back(static_cast<unsigned long long>(x));
        return out;
    };
    // TPACF: every variant's DD, DR and RR histograms.
    const testjson::Value& t = e["tpacf"];
    const int points = static_cast<int>(t["points"].num), sets = static_cast<int>(t["random_sets"].num);
    const TpacfInput in = synthetic_sky(points, sets, static_cast<int>(t["bins"].num), static_cast<std::uint64_t>(t["seed"].num));
    set_tpacf_edges(in.edge_cosines);
    const int slots = in.slots();
    std::vector<float4> packed;
    for (std::size_t i = 0; i < in.data.size() / 3; ++i) packed.push_back(make_float4(in.data[3 * i], in.data[3 * i + 1], in.data[3 * i + 2], 0));
    for (std::size_t i = 0; i < in.random.size() / 3; ++i)
        packed.push_back(make_float4(in.random[3 * i], in.random[3 * i + 1], in.random[3 * i + 2], 0));
    std::vector<unsigned long long> want = counts(t["dd"]);
    for (const char* key : {"dr", "rr"})
        for (int s = 0; s < sets; ++s) {
            const auto c = counts(t[key].items.at(s));
            want.insert(want.end(), c.begin(), c.end());
        }
    for (const auto& v : tpacf_variants().entries()) {
        const TpacfLaunch l = v.prepare();
        harness::DeviceMemory m;
        const float4* d = m.upload(packed, "upload the points");
        auto* h = m.allocate<unsigned long long>(want.size(), "allocate the histograms");
        check(cudaMemset(h, 0, sizeof(unsigned long long) * want.size()), "clear the histograms");
        l.run(d, points, d, points, true, h, nullptr);
        for (int s = 0; s < sets; ++s) {
            const float4* r = d + static_cast<std::size_t>(points) * (s + 1);
            l.run(d, points, r, points, false, h + slots * (1 + s), nullptr);
            l.run(r, points, r, points, true, h + slots * (1 + sets + s), nullptr);
        }
        std::vector<unsigned long long> got(want.size());
        check(cudaMemcpy(got.data(), h, got.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost), "download");
        EXPECT_EQ(got, want) << v.name;
    }
    // PNS: every variant's tokens per place and firings, all trajectories in one launch.
    const testjson::Value& q = e["pns"];
    PnsProblem p;
    p.edge = static_cast<int>(q["edge"].num);
    p.trajectories = static_cast<std::uint32_t>(q["trajectories"].num);
    p.steps = static_cast<std::uint32_t>(q["steps"].num);
    p.seed = static_cast<std::uint32_t>(q["seed"].num);
    const int places = p.places();
    for (const auto& v : pns_variants().entries()) {
        harness::DeviceMemory m;
        auto* state = m.allocate<std::uint8_t>(static_cast<std::size_t>(places) * p.trajectories, "allocate the markings");
        auto* firings = m.allocate<std::uint32_t>(p.trajectories, "allocate the firings");
        v.run(p.edge, p.seed, p.steps, 0, p.trajectories, state, firings, nullptr);
        std::vector<std::uint8_t> hs(static_cast<std::size_t>(places) * p.trajectories);
        std::vector<std::uint32_t> hf(p.trajectories);
        check(cudaMemcpy(hs.data(), state, hs.size(), cudaMemcpyDeviceToHost), "download");
        check(cudaMemcpy(hf.data(), firings, sizeof(std::uint32_t) * hf.size(), cudaMemcpyDeviceToHost), "download");
        PnsResult got;
        pns_accumulate(got, hs.data(), hf.data(), p.trajectories, places);
        std::vector<unsigned long long> tokens(got.tokens.begin(), got.tokens.end());
        EXPECT_EQ(tokens, counts(q["tokens"])) << v.name;
        EXPECT_EQ(got.firings, static_cast<std::uint64_t>(q["firings"].num)) << v.name;
    }
}

}  // namespace
}  // namespace ryoo
