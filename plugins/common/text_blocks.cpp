#include "common/text_blocks.h"

#include "common/json_bytes.h"

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AGENTRT_TEXT_BLOCKS_AVX2 1
#endif

namespace agentrt::providers {
namespace {

const unsigned char* skip_nothing(const unsigned char* p, const unsigned char*, bool*) {
  return p;
}

#if defined(AGENTRT_TEXT_BLOCKS_AVX2)

// UTF-8 checked by table lookups on each byte and the one before it, after Keiser and
// Lemire, "Validating UTF-8 in less than one instruction per byte" (2021). Each table
// maps a nibble to the classes of error it may take part in; a pair of bytes is in
// error where the three lookups share a class. The third and fourth bytes of a long
// sequence follow a continuation, which the pair alone calls an error (kTwoConts):
// there the lead two or three bytes back decides.
constexpr uint8_t kTooShort = 1 << 0;                         // a lead, then no continuation
constexpr uint8_t kTooLong = 1 << 1;                          // ASCII, then a continuation
constexpr uint8_t kOverlong3 = 1 << 2;                        // E0 80..9F
constexpr uint8_t kTooLarge = 1 << 3;                         // F4 90..BF, F5..FF
constexpr uint8_t kSurrogate = 1 << 4;                        // ED A0..BF
constexpr uint8_t kOverlong2 = 1 << 5;                        // C0, C1
constexpr uint8_t kTooLarge1000 = 1 << 6;                     // F5..FF 80..8F
constexpr uint8_t kOverlong4 = 1 << 6;                        // F0 80..8F
constexpr uint8_t kTwoConts = 1 << 7;                         // a continuation, then another
constexpr uint8_t kCarry = kTooShort | kTooLong | kTwoConts;  // whatever the low nibble

// By the high nibble of the first byte of a pair.
alignas(16) constexpr uint8_t kFirstHigh[16] = {kTooLong,
                                                kTooLong,
                                                kTooLong,
                                                kTooLong,
                                                kTooLong,
                                                kTooLong,
                                                kTooLong,
                                                kTooLong,
                                                kTwoConts,
                                                kTwoConts,
                                                kTwoConts,
                                                kTwoConts,
                                                kTooShort | kOverlong2,
                                                kTooShort,
                                                kTooShort | kOverlong3 | kSurrogate,
                                                kTooShort | kTooLarge | kTooLarge1000 | kOverlong4};
// By its low nibble.
constexpr uint8_t kLarge = kCarry | kTooLarge | kTooLarge1000;
alignas(16) constexpr uint8_t kFirstLow[16] = {kCarry | kOverlong3 | kOverlong2 | kOverlong4,
                                               kCarry | kOverlong2,
                                               kCarry,
                                               kCarry,
                                               kCarry | kTooLarge,
                                               kLarge,
                                               kLarge,
                                               kLarge,
                                               kLarge,
                                               kLarge,
                                               kLarge,
                                               kLarge,
                                               kLarge,
                                               kLarge | kSurrogate,
                                               kLarge,
                                               kLarge};
// By the high nibble of the second byte.
constexpr uint8_t kCont = kTooLong | kOverlong2 | kTwoConts;
alignas(16) constexpr uint8_t kSecondHigh[16] = {kTooShort,
                                                 kTooShort,
                                                 kTooShort,
                                                 kTooShort,
                                                 kTooShort,
                                                 kTooShort,
                                                 kTooShort,
                                                 kTooShort,
                                                 kCont | kOverlong3 | kTooLarge1000 | kOverlong4,
                                                 kCont | kOverlong3 | kTooLarge,
                                                 kCont | kSurrogate | kTooLarge,
                                                 kCont | kSurrogate | kTooLarge,
                                                 kTooShort,
                                                 kTooShort,
                                                 kTooShort,
                                                 kTooShort};

__attribute__((target("avx2"))) __m256i table(const uint8_t (&nibbles)[16]) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(nibbles)));
}

// Each byte of `block` replaced by the one N places before it, the first N taken from
// the end of `previous`.
template <int N>
__attribute__((target("avx2"))) __m256i shifted(__m256i block, __m256i previous) {
  return _mm256_alignr_epi8(block, _mm256_permute2x128_si256(previous, block, 0x21), 16 - N);
}

__attribute__((target("avx2"))) __m256i lookup(__m256i table, __m256i nibbles) {
  return _mm256_shuffle_epi8(table, _mm256_and_si256(nibbles, _mm256_set1_epi8(0x0F)));
}

// Non-zero at each byte of `block` where UTF-8 is not well formed so far.
__attribute__((target("avx2"))) __m256i utf8_errors(__m256i block, __m256i previous) {
  const __m256i first = shifted<1>(block, previous);
  const __m256i pair =
      _mm256_and_si256(_mm256_and_si256(lookup(table(kFirstHigh), _mm256_srli_epi16(first, 4)),
                                        lookup(table(kFirstLow), first)),
                       lookup(table(kSecondHigh), _mm256_srli_epi16(block, 4)));
  // 0x80 set where the byte two back is E0 or above, or the one three back F0 or above.
  const __m256i third = _mm256_subs_epu8(shifted<2>(block, previous), _mm256_set1_epi8(0x60));
  const __m256i fourth = _mm256_subs_epu8(shifted<3>(block, previous), _mm256_set1_epi8(0x70));
  const __m256i must_continue =
      _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8(static_cast<char>(0x80)));
  return _mm256_xor_si256(must_continue, pair);
}

// `p` after a block that ended inside a sequence: its lead byte, where the
// byte-at-a-time check can take it up.
const unsigned char* sequence_start(const unsigned char* p) {
  if (p[-1] >= 0xC0) return p - 1;
  if (p[-2] >= 0xE0) return p - 2;
  if (p[-3] >= 0xF0) return p - 3;
  return p;
}

// Clears from `stops`, first to last, each short escape's backslash and letter, up to
// a stop that ends the text: a quote, a control character, another escape's backslash,
// or one whose letter is in the next block.
uint32_t pass_short_escapes(const unsigned char* p, uint32_t stops, bool* passed) {
  while (stops != 0) {
    const int k = __builtin_ctz(stops);
    if (p[k] != '\\' || k == 31 || !kShortEscape.letter[p[k + 1]]) break;
    stops &= ~(3u << k);
    *passed = true;
  }
  return stops;
}

// `escaped` is null for text, where a backslash is a stop like any other.
__attribute__((target("avx2"))) const unsigned char* skip_avx2(const unsigned char* p,
                                                               const unsigned char* end,
                                                               bool* escaped) {
  const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\');
  const __m256i control = _mm256_set1_epi8(0x1F);
  __m256i previous = _mm256_setzero_si256();
  bool previous_past_ascii = false;  // also: there is a previous block
  for (; end - p >= 32; p += 32) {
    const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i special = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(block, quote), _mm256_cmpeq_epi8(block, backslash)),
        _mm256_cmpeq_epi8(_mm256_min_epu8(block, control), block));
    auto stops = static_cast<uint32_t>(_mm256_movemask_epi8(special));
    bool passed = false;  // told only if the block is passed up to its escapes
    if (escaped != nullptr && stops != 0) stops = pass_short_escapes(p, stops, &passed);
    const auto past_ascii = static_cast<uint32_t>(_mm256_movemask_epi8(block));
    if (past_ascii != 0 || previous_past_ascii) {
      const __m256i errors = utf8_errors(block, previous);
      const auto bad = ~static_cast<uint32_t>(
          _mm256_movemask_epi8(_mm256_cmpeq_epi8(errors, _mm256_setzero_si256())));
      // Up to the first stop: a sequence cut short by it is an error there; what comes
      // after it is not this text.
      const uint32_t ours = stops != 0 ? stops ^ (stops - 1) : ~0u;
      if ((bad & ours) != 0) return previous_past_ascii ? sequence_start(p) : p;
    }
    if (passed) *escaped = true;
    if (stops != 0) return p + __builtin_ctz(stops);
    previous = block;
    previous_past_ascii = past_ascii != 0;
  }
  return previous_past_ascii ? sequence_start(p) : p;
}

#endif

using Skip = const unsigned char* (*)(const unsigned char*, const unsigned char*, bool*);

Skip pick() {
#if defined(AGENTRT_TEXT_BLOCKS_AVX2)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return skip_avx2;
#endif
  return skip_nothing;
}

// Chosen at the first call, not at load: no other initialiser can find it unset.
Skip chosen() {
  static const Skip skip = pick();
  return skip;
}

}  // namespace

bool text_blocks_supported() {
  return chosen() != skip_nothing;
}

const unsigned char* skip_text_blocks(const unsigned char* p, const unsigned char* end) {
  return chosen()(p, end, nullptr);
}

const unsigned char* skip_escaped_text_blocks(const unsigned char* p, const unsigned char* end,
                                              bool* escaped) {
  return chosen()(p, end, escaped);
}

}  // namespace agentrt::providers
