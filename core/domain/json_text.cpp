#include "core/domain/json_text.h"

#include "core/domain/utf8_prefix.h"

#include <charconv>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace agentrt::core {
namespace {

constexpr auto kReplaceInvalid = nlohmann::json::error_handler_t::replace;
constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// The bytes of the well-formed UTF-8 sequence at text[i] (its lead >= 0x80), or 0 when
// it is ill-formed; `taken` is then how many bytes one U+FFFD stands for: the lead and
// the bytes after it that could still have continued it (Unicode's "maximal subpart",
// which is what nlohmann's decoder gives), so the byte that broke it is read afresh.
size_t utf8_sequence(std::string_view text, size_t i, size_t& taken) {
  const auto lead = static_cast<unsigned char>(text[i]);
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range (Unicode table 3-7)
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

// The first byte at or after text[i] that does not stand for itself in a JSON string
// (printable ASCII but '"' and '\\'), or text.size(). Sixteen bytes at a time: a signed
// compare with 0x20 marks the bytes below it and those past ASCII (negative) at once.
// The plugins' writer has its own (plugins/common/json_bytes.h): core may not use it.
size_t skip_plain_ascii(std::string_view text, size_t i) {
  const char* p = text.data() + i;
  const char* end = text.data() + text.size();
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i special = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash));
    const int marks = _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(x, space), special));
    if (marks != 0) return static_cast<size_t>(p - text.data()) + __builtin_ctz(marks);
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
  }
  return static_cast<size_t>(p - text.data());
}

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

}  // namespace

// Runs of bytes that stand for themselves (printable ASCII but '"' and '\\', and
// well-formed UTF-8) are copied whole. nlohmann's serializer, used before, went byte
// by byte and, for any text with a byte to escape or past ASCII, needed a json copy of
// the text first.
void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  size_t copied = 0;  // text before this is in `out`
  for (size_t i = 0; (i = skip_plain_ascii(text, i)) < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t taken = 1;
    const size_t valid = c >= 0x80 ? utf8_sequence(text, i, taken) : 0;
    if (valid) {
      i += valid;
      continue;
    }
    out.append(text.data() + copied, i - copied);
    if (c < 0x80)
      append_escape(out, c);
    else
      out += kReplacement;
    i += taken;
    copied = i;
  }
  out.append(text.data() + copied, text.size() - copied);
  out += '"';
}

std::string json_excerpt(const nlohmann::json& value, size_t max_bytes) {
  std::string text;
  append_json_value(text, value);
  if (text.size() <= max_bytes) return text;
  constexpr std::string_view kEllipsis = "...";
  text.resize(
      utf8_prefix(text, max_bytes > kEllipsis.size() ? max_bytes - kEllipsis.size() : 0).size());
  return text.append(kEllipsis);
}

namespace {

// The length of the escape at escaped[i] (a backslash) when it is one append_escape
// writes, else 0.
size_t own_escape_length(std::string_view escaped, size_t i) {
  if (i + 1 >= escaped.size()) return 0;
  switch (escaped[i + 1]) {
    case '"':
    case '\\':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      return 2;
    case 'u':
      break;
    default:
      return 0;
  }
  static constexpr std::string_view kHex = "0123456789abcdef";
  if (i + 6 > escaped.size() || escaped.compare(i + 2, 2, "00") != 0) return 0;
  const size_t high = kHex.find(escaped[i + 4]), low = kHex.find(escaped[i + 5]);
  return high <= 1 && low != std::string_view::npos ? 6 : 0;
}

}  // namespace

std::optional<DecodedSize> decoded_size(std::string_view escaped) {
  DecodedSize size;
  size_t taken = 0;
  for (size_t i = 0; i < escaped.size();) {
    const auto c = static_cast<unsigned char>(escaped[i]);
    size_t length = 1;
    if (c >= 0x80)
      length = utf8_sequence(escaped, i, taken);
    else if (c == '\\')
      length = own_escape_length(escaped, i);
    else if (c < 0x20 || c == '"')
      length = 0;
    if (length == 0) return std::nullopt;
    size.bytes += c == '\\' ? 1 : length;
    size.three_byte_characters += length == 3 && c >= 0x80;
    i += length;
  }
  return size;
}

void append_text_part(std::string& out, std::string_view text) {
  out += R"({"text":)";
  append_json_string(out, text);
  out += R"(,"type":"text"})";
}

size_t utf8_sequence_length(std::string_view text, size_t i) {
  size_t taken = 0;
  return utf8_sequence(text, i, taken);
}

bool is_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t length = utf8_sequence_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

bool stands_for_itself(std::string_view text) {
  for (char c : text)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

void append_json_int(std::string& out, int64_t value) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

// Containers, strings and integers are written here, so that a message's content (an
// array of parts) costs no nlohmann serializer, which allocates a 512-byte indent string
// and calls localeconv() each time it is made. Floats, whose shortest round-trip form
// is nlohmann's own, and binary values still go through dump.
void append_json_value(std::string& out, const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::string:
      return append_json_string(out, value.get_ref<const std::string&>());
    case Type::number_integer:
      return append_json_int(out, value.get<int64_t>());
    case Type::number_unsigned: {
      char digits[24];
      out.append(digits, std::to_chars(digits, digits + sizeof digits, value.get<uint64_t>()).ptr);
      return;
    }
    case Type::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case Type::null:
      out += "null";
      return;
    case Type::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) out += ',';
        first = false;
        append_json_value(out, element);
      }
      out += ']';
      return;
    }
    case Type::object: {
      out += '{';
      bool first = true;
      for (auto member = value.begin(); member != value.end(); ++member) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, member.key());
        out += ':';
        append_json_value(out, member.value());
      }
      out += '}';
      return;
    }
    default:
      out += value.dump(-1, ' ', false, kReplaceInvalid);
  }
}

}  // namespace agentrt::core
