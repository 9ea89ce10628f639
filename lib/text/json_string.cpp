#include "text/json_string.h"

#include "text/utf8.h"

namespace agentrt::text {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// Whether a byte of well-formed text needs an escape.
constexpr bool needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}

// Bytes by what writing them takes: nothing (0), an escape (1), or a look at the UTF-8
// sequence they start or continue (2).
struct ByteClasses {
  unsigned char of[256] = {};
  constexpr ByteClasses() {
    for (int c = 0; c < 256; ++c)
      of[c] = c >= 0x80 ? 2 : needs_escape(static_cast<unsigned char>(c)) ? 1 : 0;
  }
};
constexpr ByteClasses kClasses;

void append_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(escape, sizeof escape);
    }
  }
}

// Well-formed text from `from` on: runs of bytes that stand for themselves are copied
// whole.
void append_escaped(std::string& out, std::string_view text, size_t from) {
  size_t run = 0;
  for (size_t i = from; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (kClasses.of[c] != 1) continue;
    out.append(text.data() + run, i - run);
    append_escape(out, c);
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
}

// The length of the well-formed sequence at text[i] (a byte of 0x80 or more), or 0 with
// `taken` the bytes one U+FFFD stands for: the lead and those after it that could still
// have continued it (Unicode's maximal subpart, Table 3-7's ranges).
size_t sequence_length(std::string_view text, size_t i, size_t& taken) {
  const auto lead = static_cast<unsigned char>(text[i]);
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    taken = 1;  // a continuation byte, C0, C1 or F5-FF: never a lead
    return 0;
  }
  for (size_t k = 1; k < length; ++k) {
    const auto byte = i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
    if (byte < (k == 1 ? low : 0x80) || byte > (k == 1 ? high : 0xBF)) {
      taken = k;
      return 0;
    }
  }
  return length;
}

// Text that is not well-formed UTF-8: the slow way, byte by byte.
void append_repaired(std::string& out, std::string_view text) {
  size_t run = 0;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t taken = 1;
    if (c < 0x80) {
      if (needs_escape(c)) {
        out.append(text.data() + run, i - run);
        append_escape(out, c);
        run = i + 1;
      }
      ++i;
    } else if (const size_t length = sequence_length(text, i, taken)) {
      i += length;
    } else {
      out.append(text.data() + run, i - run);
      out += kReplacement;
      i += taken;
      run = i;
    }
  }
  out.append(text.data() + run, text.size() - run);
}

}  // namespace

// Most texts are short and ASCII: only a byte past ASCII calls on the UTF-8 validator.
void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  size_t i = 0;
  while (i < text.size() && kClasses.of[static_cast<unsigned char>(text[i])] == 0) ++i;
  bool ascii = true;
  for (size_t k = i; k < text.size() && ascii; ++k)
    ascii = static_cast<unsigned char>(text[k]) < 0x80;
  if (ascii || is_utf8(text))
    append_escaped(out, text, i);
  else
    append_repaired(out, text);
  out += '"';
}

}  // namespace agentrt::text
