// The CPU baselines of the paper's applications against independent references: Rivest's published RC5
// test vectors, hand-worked eliminations, bins and firings, brute-force slot counting, and the identities
// each result obeys (histogram totals are pair counts, tokens are conserved, HPL's residual test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "ryoo/cpu/elimination.hpp"
#include "ryoo/cpu/pns.hpp"
#include "ryoo/cpu/rc5.hpp"
#include "ryoo/cpu/tpacf.hpp"
#include "ryoo/pns_math.hpp"
#include "ryoo/rc5_math.hpp"
#include "ryoo/tpacf_math.hpp"

namespace ryoo {
namespace {

// ---- RC5 --------------------------------------------------------------------------------------------------

/// Bytes of a hex string.
template <int N>
void bytes_of(const char* hex, std::uint8_t (&out)[N]) {
    for (int i = 0; i < N; ++i) out[i] = static_cast<std::uint8_t>(std::stoul(std::string(hex + 2 * i, 2), nullptr, 16));
}

/// A block from 8 bytes of hex, as RC5 loads it: two little-endian words.
void block_of(const char* hex, std::uint32_t (&b)[2]) {
    std::uint8_t bytes[8];
    bytes_of(hex, bytes);
    for (int w = 0; w < 2; ++w)
        b[w] = bytes[4 * w] | bytes[4 * w + 1] << 8 | bytes[4 * w + 2] << 16 | static_cast<std::uint32_t>(bytes[4 * w + 3]) << 24;
}

TEST(RyooRc5, EncryptsRivestsPublishedRc5_32_12_16Vectors) {
    // R. L. Rivest, The RC5 encryption algorithm (FSE 1994), appendix: key, plaintext, ciphertext.
    const char* vectors[][3] = {
        {"00000000000000000000000000000000", "0000000000000000", "21A5DBEE154B8F6D"},
        {"915F4619BE41B2516355A50110A9CE91", "21A5DBEE154B8F6D", "F7C013AC5B2B8952"},
        {"783348E75AEB0F2FD7B169BB8DC16787", "F7C013AC5B2B8952", "2F42B3B70369FC92"},
        {"DC49DB1375A5584F6485B413B5F12BAF", "2F42B3B70369FC92", "65C178B284D197CC"},
        {"5269F149D41BA0152497574D7F153125", "65C178B284D197CC", "EB44E415DA319824"},
    };
    for (const auto& v : vectors) {
        std::uint8_t key[16];
        bytes_of(v[0], key);
        std::uint32_t block[2], expected[2];
        block_of(v[1], block);
        block_of(v[2], expected);
        rc5_32_12_16_encrypt(key, block);
        EXPECT_EQ(block[0], expected[0]) << v[0];
        EXPECT_EQ(block[1], expected[1]) << v[0];
    }
}

TEST(RyooRc5, ShiftEmulatedRotateEqualsTheNativeOneForEveryAmount) {
    for (std::uint32_t s = 0; s < 70; ++s)
        for (std::uint32_t x : {0u, 1u, 0x80000001u, 0xDEADBEEFu, 0xFFFFFFFFu})
            EXPECT_EQ(ShiftRotate::left(x, s), NativeRotate::left(x, s)) << x << " by " << s;
    EXPECT_EQ(NativeRotate::left(0x80000001u, 1), 0x00000003u);
    EXPECT_EQ(NativeRotate::left(0x12345678u, 36), 0x23456781u);  // 36 mod 32 = 4
}

TEST(RyooRc5, SeventyTwoBitKeysCarryIntoTheTopByteAsKeyBytesDo) {
    // base + index across the 64-bit boundary: the 9-byte key ff..ff 03 + 2 = 01 00 .. 00 04.
    std::uint32_t L[3];
    rc5_72_key(~0ull, 3, 2, L);
    EXPECT_EQ(L[0], 1u);
    EXPECT_EQ(L[1], 0u);
    EXPECT_EQ(L[2], 4u);
    // The search's key words and the byte-wise encryption agree.
    const Rc5Challenge c = rc5_challenge(5, 77);
    std::uint32_t words[3];
    rc5_72_key(c.base_lo, c.base_hi, 77, words);
    std::uint8_t key[9];
    for (int i = 0; i < 9; ++i) key[i] = static_cast<std::uint8_t>(words[i / 4] >> (8 * (i % 4)));
    std::uint32_t block[2] = {c.plain[0], c.plain[1]};
    rc5_32_12_9_encrypt(key, block);
    EXPECT_EQ(block[0], c.cipher[0]);
    EXPECT_EQ(block[1], c.cipher[1]);
}

TEST(RyooRc5, TheSearchFindsExactlyThePlantedKey) {
    const Rc5Challenge c = rc5_challenge(3, 1000);
    EXPECT_EQ(rc5_search_cpu(c, 0, 4096), (Rc5Result{1000, 1}));
    EXPECT_EQ(rc5_search_cpu(c, 990, 20), (Rc5Result{1000, 1}));
    EXPECT_EQ(rc5_search_cpu(c, 1001, 3000).matches, 0u);
    EXPECT_TRUE(rc5_72_matches<ShiftRotate>(c.base_lo, c.base_hi, 1000, c.plain[0], c.plain[1], c.cipher[0], c.cipher[1]));
}

// ---- TPACF ------------------------------------------------------------------------------------------------

TEST(RyooTpacf, SlotsCountTheEdgesAtOrAboveTheCosine) {
    const float edges[] = {0.9f, 0.5f, 0.0f};
    EXPECT_EQ(tpacf_slot(0.95f, edges, 3), 0);
    EXPECT_EQ(tpacf_slot(0.9f, edges, 3), 1);  // on an edge: counted with the wider angles
    EXPECT_EQ(tpacf_slot(0.7f, edges, 3), 1);
    EXPECT_EQ(tpacf_slot(0.5f, edges, 3), 2);
    EXPECT_EQ(tpacf_slot(0.1f, edges, 3), 2);
    EXPECT_EQ(tpacf_slot(-0.2f, edges, 3), 3);
    EXPECT_EQ(tpacf_slot(-1.0f, edges, 3), 3);
}

TEST(RyooTpacf, HistogramsEqualALinearScanAndTotalThePairCounts) {
    const TpacfInput in = synthetic_sky(300, 2, 20, 9);
    const TpacfHistograms h = tpacf_cpu(in);
    // Brute force: every pair's slot by scanning the edges one by one.
    const auto scan = [&](const float* a, const float* b, bool self, int n) {
        std::vector<std::uint64_t> out(in.slots(), 0);
        for (int i = 0; i < n; ++i)
            for (int j = self ? i + 1 : 0; j < n; ++j) {
                const float d = tpacf_dot(a[3 * i], a[3 * i + 1], a[3 * i + 2], b[3 * j], b[3 * j + 1], b[3 * j + 2]);
                int k = 0;
                for (float e : in.edge_cosines) k += e >= d ? 1 : 0;
                ++out[k];
            }
        return out;
    };
    const int n = in.points, slots = in.slots();
    EXPECT_EQ(h.dd, scan(in.data.data(), in.data.data(), true, n));
    for (int s = 0; s < 2; ++s) {
        EXPECT_EQ(std::vector<std::uint64_t>(h.dr.begin() + s * slots, h.dr.begin() + (s + 1) * slots),
                  scan(in.data.data(), in.random_set(s), false, n));
        EXPECT_EQ(std::vector<std::uint64_t>(h.rr.begin() + s * slots, h.rr.begin() + (s + 1) * slots),
                  scan(in.random_set(s), in.random_set(s), true, n));
    }
    EXPECT_EQ(std::accumulate(h.dd.begin(), h.dd.end(), std::uint64_t{0}), 300u * 299u / 2);
    EXPECT_EQ(std::accumulate(h.dr.begin(), h.dr.end(), std::uint64_t{0}), 2u * 300u * 300u);
    EXPECT_EQ(std::accumulate(h.rr.begin(), h.rr.end(), std::uint64_t{0}), 2u * 300u * 299u / 2);
}

TEST(RyooTpacf, CrossPairsAreSymmetricAndTheClusteredSkyCorrelatesAtSmallAngles) {
    const TpacfInput in = synthetic_sky(400, 1, 20, 4);
    std::vector<std::uint64_t> ab(in.slots(), 0), ba(in.slots(), 0);
    tpacf_pairs_cpu(in.data.data(), 400, in.random_set(0), 400, false, in.edge_cosines, ab.data());
    tpacf_pairs_cpu(in.random_set(0), 400, in.data.data(), 400, false, in.edge_cosines, ba.data());
    EXPECT_EQ(ab, ba);
    // Half the data points lie in 64 caps of about a degree: w(theta) is large between 10 and 100 arcmin
    // (slots 6 to 10 of 20 log-spaced bins from 1 arcmin) and near 0 beyond 30 degrees.
    const std::vector<double> w = landy_szalay(tpacf_cpu(in), 400, 1);
    EXPECT_GT(w[8], 1.0);
    EXPECT_LT(std::fabs(w[19]), 0.5);
}

// ---- SAXPY inside Gaussian elimination ----------------------------------------------------------------------

TEST(RyooElimination, SaxpyRoundsOncePerElement) {
    // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; rounding the product first would lose the 2^-24.
    const float a = 1 + 0x1p-12f;
    std::vector<float> x = {1, 2, 3, a}, y = {10, 20, 30, -1};
    saxpy_cpu(4, 2.0f, x.data(), y.data());
    EXPECT_EQ(y, (std::vector<float>{12, 24, 36, 2 * a - 1}));
    std::vector<float> z = {-1};
    saxpy_cpu(1, a, &a, z.data());
    EXPECT_EQ(z[0], 0x1p-11f + 0x1p-24f);
}

TEST(RyooElimination, EliminatesAHandWorkedSystemExactly) {
    // [2 1 1 | 4; 4 3 3 | 10; 8 7 9 | 24]: multipliers 2 and 4, then 3; U = [2 1 1; 0 1 1; 0 0 2], x = (1, 1, 1).
    LinearSystem s;
    s.n = 3;
    s.ld = 32;
    s.a.assign(3 * 32, 0.0f);
    const float rows[3][4] = {{2, 1, 1, 4}, {4, 3, 3, 10}, {8, 7, 9, 24}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) s.at(i, j) = rows[i][j];
    const LinearSystem original = s;
    eliminate_cpu(s);
    EXPECT_EQ(s.at(1, 1), 1.0f);
    EXPECT_EQ(s.at(1, 2), 1.0f);
    EXPECT_EQ(s.at(1, 3), 2.0f);
    EXPECT_EQ(s.at(2, 2), 2.0f);
    EXPECT_EQ(s.at(2, 3), 2.0f);
    EXPECT_EQ(back_substitute(s), (std::vector<float>{1, 1, 1}));
    EXPECT_EQ(scaled_residual(original, {1, 1, 1}), 0.0);
}

TEST(RyooElimination, SolvesTheDominantSystemWithinHplsResidualTest) {
    for (int n : {2, 97, 300}) {
        const LinearSystem original = dominant_system(n, 12);
        LinearSystem s = original;
        eliminate_cpu(s);
        const std::vector<float> x = back_substitute(s);
        EXPECT_LT(scaled_residual(original, x), 16.0) << n;
        // The right-hand side is A times ones: the solution is close to ones.
        for (float v : x) EXPECT_NEAR(v, 1.0f, 1e-4f) << n;
    }
    // A wrong solution fails the test.
    const LinearSystem original = dominant_system(50, 3);
    std::vector<float> wrong(50, 1.0f);
    wrong[7] = 1.01f;
    EXPECT_GT(scaled_residual(original, wrong), 16.0);
}

// ---- PNS --------------------------------------------------------------------------------------------------

TEST(RyooPns, FiresAHandWorkedSequenceOnTheTwoByTwoNet) {
    std::uint8_t m[4] = {1, 1, 1, 1};
    // Transition 0 = (0, 0): places 0 and 1 in, 2 and 3 out.
    EXPECT_TRUE(pns_fire(m, 2, 0));
    EXPECT_EQ((std::vector<int>(m, m + 4)), (std::vector<int>{0, 0, 2, 2}));
    EXPECT_FALSE(pns_fire(m, 2, 0));  // its inputs are empty
    EXPECT_FALSE(pns_fire(m, 2, 1));  // (0, 1): places 1 and 0
    // Transition 2 = (1, 0): places 2 and 3 in, 0 and 1 out (the torus wraps).
    EXPECT_TRUE(pns_fire(m, 2, 2));
    EXPECT_EQ((std::vector<int>(m, m + 4)), (std::vector<int>{1, 1, 1, 1}));
}

TEST(RyooPns, DrawsAreUniformOverTransitions) {
    std::vector<int> count(64, 0);
    for (std::uint32_t s = 0; s < 64000; ++s) ++count[pns_draw(1, 7, s, 64)];
    for (int c : count) EXPECT_NEAR(c, 1000, 150);
}

TEST(RyooPns, TokensAreConservedAndTrajectoriesDoNotDependOnEachOther) {
    PnsProblem p;
    p.edge = 5;
    p.steps = 300;
    p.trajectories = 40;
    const PnsResult r = pns_cpu(p);
    EXPECT_EQ(std::accumulate(r.tokens.begin(), r.tokens.end(), std::uint64_t{0}), 25u * 40u);
    EXPECT_GT(r.firings, 0u);
    EXPECT_LE(r.firings, 300u * 40u);
    // The same trajectories one by one, in reverse order, accumulated from the GPU's layout.
    std::vector<std::uint8_t> state(25 * 40);
    std::vector<std::uint32_t> firings(40);
    std::vector<std::uint8_t> m(25);
    for (int t = 39; t >= 0; --t) {
        firings[t] = pns_trajectory_cpu(p, static_cast<std::uint32_t>(t), m.data());
        for (int q = 0; q < 25; ++q) state[q * 40 + t] = m[q];
    }
    PnsResult again;
    pns_accumulate(again, state.data(), firings.data(), 40, 25);
    EXPECT_EQ(again, r);
    EXPECT_THROW(validate(PnsProblem{16, 1, 1, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace ryoo
