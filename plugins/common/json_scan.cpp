#include "common/json_scan.h"

#include "common/json_bytes.h"

#include <cstring>

namespace agentrt::providers {
namespace {

// Deeper documents go to nlohmann, which has no depth limit of its own; no vendor
// event comes near this.
constexpr int kMaxDepth = 64;
// A number of this many characters or more goes to nlohmann: it refuses numbers that
// overflow a double, and below this length (without an exponent) none can.
constexpr size_t kMaxNumberChars = 300;
// Integers of up to 18 digits fit an int64_t; longer ones go to nlohmann, which
// reads some of them as unsigned and some as floating point.
constexpr size_t kMaxIntDigits = 18;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the four hex digits at `p` (end-checked by the caller), or -1.
int hex4(const char* p) {
  int value = 0;
  for (int i = 0; i < 4; ++i) {
    int digit = hex_value(p[i]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

bool in_range(int value, int low, int high) {
  return value >= low && value <= high;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The escape at `p` (just past the backslash); its length past the backslash, or 0
// when it is not valid JSON. A \u escape of a high surrogate must be followed by one
// of a low surrogate; `cp` gets the code point.
size_t escape_length(const char* p, const char* end, uint32_t& cp) {
  if (p == end) return 0;
  switch (*p) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      return 1;
    case 'u':
      break;
    default:
      return 0;
  }
  int unit = end - p >= 5 ? hex4(p + 1) : -1;
  if (unit < 0 || in_range(unit, 0xDC00, 0xDFFF)) return 0;
  if (!in_range(unit, 0xD800, 0xDBFF)) {
    cp = static_cast<uint32_t>(unit);
    return 5;
  }
  if (end - p < 11 || p[5] != '\\' || p[6] != 'u') return 0;
  int low = hex4(p + 7);
  if (low < 0 || !in_range(low, 0xDC00, 0xDFFF)) return 0;
  cp = 0x10000 + ((static_cast<uint32_t>(unit) - 0xD800) << 10) +
       (static_cast<uint32_t>(low) - 0xDC00);
  return 11;
}

// Whether the escape at `e` (just past the backslash; `cp` its code point) is the one
// EscapedText's form has for that character: not `\/`, and `\u` only for the bytes
// below 0x20 without a short escape, in lower-case hex.
bool escape_as_written(const char* e, uint32_t cp) {
  switch (*e) {
    case '"':
    case '\\':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      return true;
    case 'u':
      break;
    default:
      return false;
  }
  if (cp >= 0x20 || cp == '\b' || cp == '\f' || cp == '\n' || cp == '\r' || cp == '\t')
    return false;
  return !(e[4] >= 'A' && e[4] <= 'F');  // below 0x20, the first three digits are "00" and 0 or 1
}

}  // namespace

JsonScanner::JsonScanner(std::string_view text)
    : p_(text.data()), end_(text.data() + text.size()) {}

bool JsonScanner::fail() {
  ok_ = false;
  p_ = end_;
  return false;
}

bool JsonScanner::enter_object() {
  if (peek() != '{') return false;
  ++p_;
  first_ = true;
  return true;
}

bool JsonScanner::enter_array() {
  if (peek() != '[') return false;
  ++p_;
  first_ = true;
  return true;
}

// A key with escapes, bytes past ASCII or space before its colon.
bool JsonScanner::next_key_slowly(std::string_view& key) {
  std::string_view raw;
  bool escaped = false;
  if (peek() != '"' || !scan_string(&raw, &escaped)) return fail();
  if (!decode_string(raw, escaped, key_buffer_, key)) return false;
  if (peek() != ':') return fail();
  ++p_;
  return true;
}

// At the opening quote: passes the string, validating it; `raw` is what stands
// between the quotes, `escaped` tells whether it holds a backslash, and `as_written`
// whether every escape is the one EscapedText's form has.
bool JsonScanner::scan_string(std::string_view* raw, bool* escaped, bool* as_written) {
  const char* start = ++p_;
  bool saw_escape = false;
  bool escapes_as_written = true;
  const char* p = start;
  for (;;) {
    // Runs of plain bytes and well-formed UTF-8, the bulk of any string, in one call.
    p = reinterpret_cast<const char*>(
        skip_escaped_text(reinterpret_cast<const unsigned char*>(p),
                          reinterpret_cast<const unsigned char*>(end_), &saw_escape));
    if (p == end_) return fail();
    if (*p == '"') break;
    // A control character, which must be escaped, or a malformed sequence.
    if (*p != '\\') return fail();
    saw_escape = true;
    // Prose has a short escape (a newline, a quote, a tab) every line or two: passed
    // here, without decoding, as each is the form EscapedText keeps.
    if (end_ - p >= 2 && kShortEscape.letter[static_cast<unsigned char>(p[1])]) {
      p += 2;
      continue;
    }
    uint32_t cp = 0;
    size_t n = escape_length(p + 1, end_, cp);
    if (n == 0) return fail();
    escapes_as_written = escapes_as_written && escape_as_written(p + 1, cp);
    p += 1 + n;
  }
  p_ = p + 1;
  if (raw) *raw = std::string_view(start, static_cast<size_t>(p - start));
  if (escaped) *escaped = saw_escape;
  if (as_written) *as_written = escapes_as_written;
  return true;
}

// `raw` was validated by scan_string; decodes it into `buffer` only when it holds
// escapes, otherwise `out` views the scanned text.
bool JsonScanner::decode_string(std::string_view raw, bool escaped, std::string& buffer,
                                std::string_view& out) {
  if (!escaped) {
    out = raw;
    return true;
  }
  buffer.clear();
  buffer.reserve(raw.size());  // decoding only shortens
  const char* p = raw.data();
  const char* end = p + raw.size();
  while (p < end) {
    const char* slash = static_cast<const char*>(std::memchr(p, '\\', end - p));
    if (!slash) slash = end;
    buffer.append(p, static_cast<size_t>(slash - p));
    if (slash == end) break;
    uint32_t cp = 0;
    size_t n = escape_length(slash + 1, end, cp);
    switch (slash[1]) {
      case 'b':
        cp = '\b';
        break;
      case 'f':
        cp = '\f';
        break;
      case 'n':
        cp = '\n';
        break;
      case 'r':
        cp = '\r';
        break;
      case 't':
        cp = '\t';
        break;
      case 'u':
        break;
      default:  // '"', '\\' and '/' stand for themselves
        cp = static_cast<unsigned char>(slash[1]);
    }
    append_utf8(buffer, cp);
    p = slash + 1 + n;
  }
  out = buffer;
  return true;
}

// At '-' or a digit. `value`, when given, gets the integer, or nullopt for a number
// with a fraction (not an integer to nlohmann either).
bool JsonScanner::scan_number(std::optional<int64_t>* value) {
  const char* start = p_;
  const char* p = p_;
  const bool negative = *p == '-';
  if (negative) ++p;
  const char* digits = p;
  if (p == end_ || !is_digit(*p)) return fail();
  if (*p == '0') {
    ++p;
  } else {
    while (p < end_ && is_digit(*p)) ++p;
  }
  const size_t int_digits = static_cast<size_t>(p - digits);
  bool fraction = false;
  if (p < end_ && *p == '.') {
    ++p;
    if (p == end_ || !is_digit(*p)) return fail();
    while (p < end_ && is_digit(*p)) ++p;
    fraction = true;
  }
  // An exponent may overflow a double, which nlohmann refuses: leave it to nlohmann.
  if (p < end_ && (*p == 'e' || *p == 'E')) return fail();
  if (static_cast<size_t>(p - start) >= kMaxNumberChars) return fail();
  p_ = p;
  if (!value) return true;
  if (fraction) {
    value->reset();
    return true;
  }
  if (int_digits > kMaxIntDigits) return fail();
  int64_t n = 0;
  for (const char* d = digits; d < digits + int_digits; ++d) n = n * 10 + (*d - '0');
  *value = negative ? -n : n;
  return true;
}

bool JsonScanner::scan_literal(std::string_view word) {
  if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
    return fail();
  p_ += word.size();
  return true;
}

bool JsonScanner::skip(int depth) {
  switch (peek()) {
    case '{': {
      if (depth >= kMaxDepth) return fail();
      enter_object();
      std::string_view key;
      while (next_key(key)) skip(depth + 1);
      return ok_;
    }
    case '[':
      if (depth >= kMaxDepth) return fail();
      enter_array();
      while (next_element()) skip(depth + 1);
      return ok_;
    case '"':
      return scan_string(nullptr, nullptr);
    case 't':
      return scan_literal("true");
    case 'f':
      return scan_literal("false");
    case 'n':
      return scan_literal("null");
    case '\0':
      return fail();
    default:
      return scan_number(nullptr);
  }
}

bool JsonScanner::read_text(JsonText& out) {
  if (peek() != '"') {
    out.clear();
    return skip_value();
  }
  std::string_view raw;
  bool escaped = false;
  if (!scan_string(&raw, &escaped)) return false;
  if (!escaped) {
    out.set_view(raw);
    return true;
  }
  std::string& buffer = out.buffer();
  std::string_view decoded;
  return decode_string(raw, escaped, buffer, decoded);
}

bool JsonScanner::read_int(std::optional<int64_t>& out) {
  char c = peek();
  if (c == '-' || is_digit(c)) return scan_number(&out);
  out.reset();
  return skip_value();
}

bool JsonScanner::read_bool(std::optional<bool>& out) {
  char c = peek();
  out.reset();
  if (c == 't' && scan_literal("true")) out = true;
  if (c == 'f' && scan_literal("false")) out = false;
  if (c == 't' || c == 'f') return ok_;
  return skip_value();
}

void JsonScanner::read_member_text(std::string_view name, JsonText& out) {
  out.clear();
  members([&](std::string_view key) {
    if (key == name)
      read_text(out);
    else
      skip_value();
  });
}

bool JsonScanner::read_string(std::string& out) {
  if (peek() != '"') return false;
  std::string_view raw;
  bool escaped = false;
  if (!scan_string(&raw, &escaped)) return false;
  if (!escaped) {
    out.assign(raw);
    return true;
  }
  std::string_view decoded;
  return decode_string(raw, escaped, out, decoded);
}

bool JsonScanner::read_escaped(EscapedText& out) {
  if (peek() != '"') return false;
  std::string_view raw;
  bool escaped = false;
  bool as_written = true;
  if (!scan_string(&raw, &escaped, &as_written)) return false;
  if (as_written) {
    out.borrow(raw);
    return true;
  }
  std::string decoded;
  std::string_view text;
  decode_string(raw, escaped, decoded, text);
  out = EscapedText::of(text);  // validated above, so it is UTF-8 and cannot throw
  return true;
}

bool JsonScanner::finish() {
  skip_whitespace();
  return ok_ && p_ == end_;
}

}  // namespace agentrt::providers
