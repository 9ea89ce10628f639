// What the JSON reader (json_scan.h) and writer (json_writer.h) both need to know about
// the bytes of a string: which stand for themselves, and where UTF-8 is well formed.
#pragma once

#include "common/text_blocks.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace agentrt::providers {

// Bytes that stand for themselves inside a string: printable ASCII but the quote and
// the backslash. Everything else needs a closer look.
struct PlainBytes {
  bool plain[256] = {};
  constexpr PlainBytes() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
inline constexpr PlainBytes kPlainBytes;

// The first byte at or after `p` that does not stand for itself, or `end`. Sixteen or
// eight bytes at a time, as text is mostly such bytes (on a request of long messages of
// prose, eight at a time wrote the vendor's body in 30% less time than one at a time).
inline const unsigned char* skip_plain(const unsigned char* p, const unsigned char* end) {
#if defined(__SSE2__)
  // Sixteen at a time where the CPU has SSE2, as every x86-64 does: a signed compare
  // with 0x20 marks the bytes below it and those past ASCII (negative) at once. A read
  // of English prose took 18% fewer instructions (bench/README.md, session 20).
  const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i special = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash));
    const int marks = _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(x, space), special));
    if (marks != 0) return p + __builtin_ctz(static_cast<unsigned>(marks));
    p += 16;
  }
#endif
  constexpr uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
  // The lowest mark is the first byte only where the first byte is the lowest.
  constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  while (kLittleEndian && end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    const uint64_t quote = x ^ (kOnes * '"'), backslash = x ^ (kOnes * '\\');
    // A byte's high bit ends up set where it is past ASCII, or below 0x20 (x - 0x20
    // wraps), or a quote or backslash (the xor left 0, and 0 - 1 wraps). A borrow
    // can only mark bytes above a marked one (little-endian: later ones), so the
    // lowest mark is the first such byte.
    const uint64_t marks = ((x - kOnes * 0x20) | (quote - kOnes) | (backslash - kOnes) | x) & kHigh;
    if (marks != 0) return p + __builtin_ctzll(marks) / 8;
    p += 8;
  }
  while (p < end && kPlainBytes.plain[*p]) ++p;
  return p;
}

// The length of the well-formed UTF-8 sequence at `p` (a byte >= 0x80), or 0. The
// ranges are RFC 3629's, which nlohmann enforces too: no overlong forms, no encoded
// surrogates, nothing above U+10FFFF.
inline size_t utf8_length(const unsigned char* p, const unsigned char* end) {
  const auto in = [](unsigned char c, unsigned char low, unsigned char high) {
    return c >= low && c <= high;
  };
  const unsigned char c = p[0];
  const size_t left = static_cast<size_t>(end - p);
  if (in(c, 0xC2, 0xDF)) return left >= 2 && in(p[1], 0x80, 0xBF) ? 2 : 0;
  if (in(c, 0xE0, 0xEF)) {
    if (left < 3 || !in(p[2], 0x80, 0xBF)) return 0;
    unsigned char low = c == 0xE0 ? 0xA0 : 0x80, high = c == 0xED ? 0x9F : 0xBF;
    return in(p[1], low, high) ? 3 : 0;
  }
  if (in(c, 0xF0, 0xF4)) {
    if (left < 4 || !in(p[2], 0x80, 0xBF) || !in(p[3], 0x80, 0xBF)) return 0;
    unsigned char low = c == 0xF0 ? 0x90 : 0x80, high = c == 0xF4 ? 0x8F : 0xBF;
    return in(p[1], low, high) ? 4 : 0;
  }
  return 0;
}

// The first byte at or after `p` that neither stands for itself nor belongs to a
// well-formed UTF-8 sequence (a quote, a backslash, a control character, a malformed
// sequence), or `end`. In a script past ASCII every letter is such a sequence, with a
// space or a comma between words, so a run of sequences and single plain bytes stays in
// one loop, and only two ASCII bytes in a row go back to skip_plain: through skip_plain
// at every letter, a Russian text was read at a sixth of the pace of an English one
// (bench/README.md, session 20).
inline const unsigned char* skip_text_bytewise(const unsigned char* p, const unsigned char* end) {
  for (;;) {
    p = skip_plain(p, end);
    if (p == end || *p < 0x80) return p;
    do {
      const size_t length = utf8_length(p, end);
      if (length == 0) return p;
      p += length;
      if (p < end && kPlainBytes.plain[*p]) ++p;  // a space between words
    } while (p < end && *p >= 0x80);
  }
}

// The same, 32 bytes at a time where the CPU can (text_blocks.h) from the first byte
// past ASCII on, with 32 bytes or more left: the text of a message past ASCII is mostly
// read that way. Before it, and in short strings (a role, a model's name, a message of
// a few words), plain ASCII is passed faster without the UTF-8 check.
inline const unsigned char* skip_text(const unsigned char* p, const unsigned char* end) {
  p = skip_plain(p, end);
  if (p == end || *p < 0x80) return p;
  if (end - p >= 32) p = skip_text_blocks(p, end);
  return skip_text_bytewise(p, end);
}

// The letters after a backslash that make a two-byte escape of EscapedText's form: all
// JSON's short escapes but "\/".
struct ShortEscapes {
  bool letter[256] = {};
  constexpr ShortEscapes() {
    for (char c : {'"', '\\', 'b', 'f', 'n', 'r', 't'})
      letter[static_cast<unsigned char>(c)] = true;
  }
};
inline constexpr ShortEscapes kShortEscape;

// skip_text over a JSON string as written, whose blocks start at an escape too, pass
// short escapes, and set `*escaped` when they did; it stops at any escape it leaves to
// the caller.
inline const unsigned char* skip_escaped_text(const unsigned char* p, const unsigned char* end,
                                              bool* escaped) {
  p = skip_plain(p, end);
  if (p == end || (*p < 0x80 && *p != '\\')) return p;  // the end of a string of ASCII
  if (end - p >= 32) p = skip_escaped_text_blocks(p, end, escaped);
  return skip_text_bytewise(p, end);
}

}  // namespace agentrt::providers
