#include "ryoo/cpu/rc5.hpp"

#include "ryoo/rc5_math.hpp"

namespace ryoo {
namespace {

std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// Key words from key bytes, little-endian, the last word zero-padded.
template <int C, int B>
void key_words(const std::uint8_t (&key)[B], std::uint32_t (&L)[C]) {
    for (auto& w : L) w = 0;
    for (int i = B - 1; i >= 0; --i) L[i / 4] = (L[i / 4] << 8) + key[i];
}

}  // namespace

Rc5Challenge rc5_challenge(std::uint64_t seed, std::uint64_t planted) {
    Rc5Challenge c;
    c.base_lo = mix(seed * 4 + 1);
    c.base_hi = static_cast<std::uint32_t>(mix(seed * 4 + 2) & 0xff);
    const std::uint64_t text = mix(seed * 4 + 3);
    c.plain[0] = static_cast<std::uint32_t>(text);
    c.plain[1] = static_cast<std::uint32_t>(text >> 32);
    std::uint32_t L[3];
    rc5_72_key(c.base_lo, c.base_hi, planted, L);
    std::uint32_t S[rc5_table];
    rc5_expand_key<NativeRotate, 3>(L, S);
    c.cipher[0] = c.plain[0];
    c.cipher[1] = c.plain[1];
    rc5_encrypt<NativeRotate>(S, c.cipher[0], c.cipher[1]);
    return c;
}

Rc5Result rc5_search_cpu(const Rc5Challenge& c, std::uint64_t first, std::uint64_t count) {
    Rc5Result r;
    for (std::uint64_t t = 0; t < count; ++t) {
        const std::uint64_t index = first + t;
        if (rc5_72_matches<NativeRotate>(c.base_lo, c.base_hi, index, c.plain[0], c.plain[1], c.cipher[0], c.cipher[1])) {
            if (r.matches == 0) r.first = index;
            ++r.matches;
        }
    }
    return r;
}

void rc5_32_12_16_encrypt(const std::uint8_t (&key)[16], std::uint32_t (&block)[2]) {
    std::uint32_t L[4];
    key_words<4>(key, L);
    std::uint32_t S[rc5_table];
    rc5_expand_key<NativeRotate, 4>(L, S);
    rc5_encrypt<NativeRotate>(S, block[0], block[1]);
}

void rc5_32_12_9_encrypt(const std::uint8_t (&key)[9], std::uint32_t (&block)[2]) {
    std::uint32_t L[3];
    key_words<3>(key, L);
    std::uint32_t S[rc5_table];
    rc5_expand_key<NativeRotate, 3>(L, S);
    rc5_encrypt<NativeRotate>(S, block[0], block[1]);
}

}  // namespace ryoo
