/// @file rc5_math.hpp
/// @brief RC5-32/12 (Rivest 1994) written once for the CPU and the GPU, with the rotation as a policy: the
/// key schedule and the encryption of one block, and the 72-bit key of the RC5-72 search.
///
/// RC5-72 searches 9-byte keys (c = 3 key words) for the one that encrypts a known plaintext to a known
/// ciphertext. The G80 had no rotate instruction, so its kernel rotated with two shifts and an OR; Hopper
/// has a funnel shift. The CPU rotates with its native instruction (std::rotl).
#pragma once

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

#include "ryoo/point_math.hpp"

/// Unrolls the loop that follows completely (nvcc's device pass and GCC each by their own pragma), so that every index of
/// the key table is a constant and the table lives in registers.
#if defined(__CUDA_ARCH__)
#define RYOO_UNROLL_ALL _Pragma("unroll")
#elif defined(__CUDACC__)
#define RYOO_UNROLL_ALL  // nvcc's host pass: the CPU code is compiled by the C++ compiler instead
#else
#define RYOO_UNROLL_ALL _Pragma("GCC unroll 128")
#endif

namespace ryoo {

/// RC5's magic constants for 32-bit words.
inline constexpr std::uint32_t rc5_p32 = 0xB7E15163u;
inline constexpr std::uint32_t rc5_q32 = 0x9E3779B9u;  ///< the second constant, Q32
/// Rounds of RC5-32/12 and the words of its expanded key, 2 (r + 1).
inline constexpr int rc5_rounds = 12;
inline constexpr int rc5_table = 2 * (rc5_rounds + 1);  ///< words of the expanded key table

/// Rotation by the machine's own rotate: the CPU's rol (std::rotl), the GPU's funnel shift.
struct NativeRotate {
    /// @p x rotated left by @p s mod 32.
    RYOO_HOST_DEVICE static std::uint32_t left(std::uint32_t x, std::uint32_t s) {
#if defined(__CUDA_ARCH__)
        return __funnelshift_l(x, x, s);
#else
        return std::rotl(x, static_cast<int>(s & 31u));
#endif
    }
};

/// Rotation emulated with two shifts and an OR, as on the G80. On the GPU it is written in PTX, so that
/// the compiler cannot recognise the idiom and emit a funnel shift after all (the SASS is checked by the
/// experiment `rc5_sass`).
struct ShiftRotate {
    /// @p x rotated left by @p s mod 32.
    RYOO_HOST_DEVICE static std::uint32_t left(std::uint32_t x, std::uint32_t s) {
        s &= 31u;
#if defined(__CUDA_ARCH__)
        std::uint32_t r;
        asm volatile("{\n\t.reg .b32 lo, hi, t;\n\tshl.b32 lo, %1, %2;\n\tsub.u32 t, 32, %2;\n\tshr.b32 hi, %1, t;\n\t"
                     "or.b32 %0, lo, hi;\n\t}"
                     : "=r"(r)
                     : "r"(x), "r"(s));
        return r;
#else
        return (x << s) | (x >> ((32u - s) & 31u));
#endif
    }
};

/// The expanded key S (rc5_table words) of the key words @p L (@p c of them, little-endian from the key
/// bytes; destroyed). C is the number of key words, a compile-time constant so that every index is one.
template <class Rotate, int C>
RYOO_HOST_DEVICE inline void rc5_expand_key(std::uint32_t (&L)[C], std::uint32_t (&S)[rc5_table]) {
    S[0] = rc5_p32;
RYOO_UNROLL_ALL
    for (int i = 1; i < rc5_table; ++i) S[i] = S[i - 1] + rc5_q32;
    std::uint32_t a = 0, b = 0;
    constexpr int n = 3 * (rc5_table > C ? rc5_table : C);
RYOO_UNROLL_ALL
    for (int s = 0; s < n; ++s) {
        const int i = s % rc5_table, j = s % C;
        a = S[i] = Rotate::left(S[i] + a + b, 3);
        b = L[j] = Rotate::left(L[j] + a + b, a + b);
    }
}

/// Encrypts the block (@p a, @p b) in place with the expanded key @p S.
template <class Rotate>
RYOO_HOST_DEVICE inline void rc5_encrypt(const std::uint32_t (&S)[rc5_table], std::uint32_t& a, std::uint32_t& b) {
    a += S[0];
    b += S[1];
RYOO_UNROLL_ALL
    for (int i = 1; i <= rc5_rounds; ++i) {
        a = Rotate::left(a ^ b, b) + S[2 * i];
        b = Rotate::left(b ^ a, a) + S[2 * i + 1];
    }
}

/// The three key words of the 72-bit key base + @p index, where the base is @p base_lo (its low 64 bits)
/// and @p base_hi (its top 8 bits): word 0 the lowest 32 bits, word 2 the top 8.
RYOO_HOST_DEVICE inline void rc5_72_key(std::uint64_t base_lo, std::uint32_t base_hi, std::uint64_t index,
                                        std::uint32_t (&L)[3]) {
    const std::uint64_t lo = base_lo + index;
    const std::uint32_t carry = lo < base_lo ? 1u : 0u;
    L[0] = static_cast<std::uint32_t>(lo);
    L[1] = static_cast<std::uint32_t>(lo >> 32);
    L[2] = (base_hi + carry) & 0xffu;
}

/// Whether the 72-bit key base + @p index encrypts (@p p0, @p p1) to (@p c0, @p c1).
template <class Rotate>
RYOO_HOST_DEVICE inline bool rc5_72_matches(std::uint64_t base_lo, std::uint32_t base_hi, std::uint64_t index,
                                            std::uint32_t p0, std::uint32_t p1, std::uint32_t c0, std::uint32_t c1) {
    std::uint32_t L[3];
    rc5_72_key(base_lo, base_hi, index, L);
    std::uint32_t S[rc5_table];
    rc5_expand_key<Rotate, 3>(L, S);
    rc5_encrypt<Rotate>(S, p0, p1);
    return p0 == c0 && p1 == c1;
}

}  // namespace ryoo
