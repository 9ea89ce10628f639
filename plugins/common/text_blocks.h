// Text passed over 32 bytes at a time, its UTF-8 checked as it goes, where the CPU has
// AVX2. The byte-at-a-time check (skip_text, json_bytes.h) stops at every letter of a
// script past ASCII: a request of Russian prose was read at a third of the pace of an
// English one, which made the read of a long session's request most of its /chat
// (bench/README.md, session 27).
#pragma once

namespace agentrt::providers {

// Whether skip_text_blocks looks at blocks on this CPU; without AVX2 it returns `p`.
bool text_blocks_supported();

// A point q at or after `p`, at the start of a character, such that every byte in
// [p, q) stands for itself in a JSON string (printable ASCII but '"' and '\') or
// belongs to a well-formed UTF-8 sequence, and q is at or before the first byte that
// does neither. It stops short of that byte in the last 31 bytes before `end` and
// before a malformed sequence, both left to the byte-at-a-time check. `p` must be at
// the start of a character.
const unsigned char* skip_text_blocks(const unsigned char* p, const unsigned char* end);

// The same over a JSON string as written: a short escape of EscapedText's form (a
// backslash and one of `" \ b f n r t`) is passed over too, and `*escaped` set when
// one was. English prose has one every line or two, and a block a stop.
const unsigned char* skip_escaped_text_blocks(const unsigned char* p, const unsigned char* end,
                                              bool* escaped);

}  // namespace agentrt::providers
