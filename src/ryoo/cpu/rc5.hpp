/// @file rc5.hpp
/// @brief RC5-72 on one CPU thread (native rotate): the challenge of a search (a known plaintext, its
/// ciphertext under a key planted in the range), the search, and RC5-32/12 on key bytes for the published
/// test vectors.
#pragma once

#include <cstdint>
#include <vector>

namespace ryoo {

/// The known plaintext and ciphertext of an RC5-72 search and the 72-bit key its range starts at.
struct Rc5Challenge {
    std::uint32_t plain[2] = {0, 0};   ///< the known plaintext block
    std::uint32_t cipher[2] = {0, 0};  ///< its encryption under the unknown key
    std::uint64_t base_lo = 0;         ///< low 64 bits of the first key of the range
    std::uint32_t base_hi = 0;         ///< top 8 bits of the first key of the range
};

/// A challenge from @p seed whose key is the range's key number @p planted: base, plaintext from the seed,
/// ciphertext by encrypting the plaintext with base + planted (CPU, native rotate).
Rc5Challenge rc5_challenge(std::uint64_t seed, std::uint64_t planted);

/// The outcome of a search: the least matching key number and how many matched.
struct Rc5Result {
    std::uint64_t first = ~0ull;  ///< least matching key number (all ones: none)
    std::uint64_t matches = 0;    ///< keys that matched
    /// Equal in every member (GPU results are compared with the CPU's exactly).
    bool operator==(const Rc5Result&) const = default;
};

/// Tests keys first .. first + count - 1 of @p c on one CPU thread.
Rc5Result rc5_search_cpu(const Rc5Challenge& c, std::uint64_t first, std::uint64_t count);

/// RC5-32/12 encryption of @p block (two words, little-endian from the plaintext bytes) under the 16-byte
/// @p key, as Rivest's test vectors give them.
void rc5_32_12_16_encrypt(const std::uint8_t (&key)[16], std::uint32_t (&block)[2]);

/// RC5-32/12 encryption under the 9-byte @p key (RC5-72), from key bytes.
void rc5_32_12_9_encrypt(const std::uint8_t (&key)[9], std::uint32_t (&block)[2]);

}  // namespace ryoo
