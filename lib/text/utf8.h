// UTF-8 checks and cuts, for core and plugins alike.
#pragma once

#include <cstddef>
#include <string_view>

namespace agentrt::text {

// Whether all of `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), checked by simdjson's validator, which picks the
// widest vector instructions the CPU has.
bool is_utf8(std::string_view text);

// The characters (code points) of UTF-8 `text`: what a limit "in characters" counts, as
// JSON Schema's maxLength does.
size_t utf8_length(std::string_view text);

// The longest start of `text` of at most `room` bytes that ends at a character's end.
std::string_view utf8_prefix(std::string_view text, size_t room);

}  // namespace agentrt::text
