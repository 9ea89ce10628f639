#include "common/escaped_text.h"

#include "common/json_bytes.h"

#include <nlohmann/json.hpp>

namespace agentrt::providers {
namespace {

// As nlohmann's serializer escapes a byte below 0x20, a quote or a backslash.
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

EscapedText EscapedText::borrowed(std::string_view escaped) {
  EscapedText text;
  text.borrow(escaped);
  return text;
}

EscapedText EscapedText::of(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  append_escaped(escaped, text);
  return owning(std::move(escaped));
}

EscapedText EscapedText::owning(std::string escaped) {
  EscapedText text;
  text.owned_ = true;
  text.storage_ = std::move(escaped);
  return text;
}

std::string EscapedText::text() const {
  std::string quoted;
  quoted.reserve(json().size() + 2);
  quoted.append(1, '"').append(json()).append(1, '"');
  return nlohmann::json::parse(quoted).get<std::string>();
}

// Runs of bytes that stand for themselves (printable ASCII but '"' and '\\', and
// well-formed UTF-8) are copied whole; the rest is escaped as dump() escapes it. Text
// of a model's answers has newlines, quotes and letters past ASCII in nearly every
// message, and nlohmann took a copy of each such text and went through it byte by byte:
// on a session of 580 such messages, 0.9 ms of the plugin's CPU a request
// (bench/README.md). Text that is not UTF-8 still goes to nlohmann, to throw as before.
void append_escaped(std::string& out, std::string_view text) {
  const size_t start = out.size();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  const auto* run = p;  // bytes from here on are not in out yet
  while ((p = skip_text(p, end)) < end) {
    if (*p >= 0x80) {  // not UTF-8
      out.resize(start);
      const std::string quoted = nlohmann::json(std::string(text)).dump();  // throws
      out.append(quoted, 1, quoted.size() - 2);
      return;
    }
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    append_escape(out, *p);
    run = ++p;
  }
  out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(end - run));
}

}  // namespace agentrt::providers
