// JSON text written directly, for the documents a request builds only to serialise
// them at once (events, the provider request, /chat's answer, log lines): building an
// nlohmann object for those cost about 300 of the 790 allocations of a /chat (every
// key, every node, and the stack nlohmann's destructor allocates to free it). The text
// is the same as nlohmann's dump with ensure_ascii off and invalid UTF-8 replaced by
// U+FFFD (lib/text/json_string.h); callers write keys in sorted order, as dump does.
#pragma once

#include "text/json_string.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::core {

using text::append_json_string;

// Appends a JSON integer.
void append_json_int(std::string& out, int64_t value);
// Appends `value` as nlohmann's dump writes it (invalid UTF-8 replaced).
void append_json_value(std::string& out, const nlohmann::json& value);
// Appends the content part {"type":"text","text":`text`} as append_json_value writes
// it: {"text":...,"type":"text"}.
void append_text_part(std::string& out, std::string_view text);

// `value` as dump writes it, for a message that quotes what it was given: at most
// `max_bytes` bytes, a longer text cut before the character that would pass the limit
// (never inside one, so the message stays UTF-8) and ended with "...".
std::string json_excerpt(const nlohmann::json& value, size_t max_bytes);

// One object written member by member: {"a":1,"b":"x"}. Keys are written as given,
// unescaped: they are the caller's literals.
class JsonObjectText {
 public:
  explicit JsonObjectText(std::string& out) : out_(out) { out_ += '{'; }
  JsonObjectText(const JsonObjectText&) = delete;
  JsonObjectText& operator=(const JsonObjectText&) = delete;

  JsonObjectText& string(std::string_view key, std::string_view value) {
    append_json_string(key_(key), value);
    return *this;
  }
  JsonObjectText& integer(std::string_view key, int64_t value) {
    append_json_int(key_(key), value);
    return *this;
  }
  JsonObjectText& boolean(std::string_view key, bool value) {
    key_(key) += value ? "true" : "false";
    return *this;
  }
  JsonObjectText& value(std::string_view key, const nlohmann::json& value) {
    append_json_value(key_(key), value);
    return *this;
  }
  // The member's key; the caller then writes its value into out().
  std::string& member(std::string_view key) { return key_(key); }
  void close() { out_ += '}'; }

 private:
  std::string& key_(std::string_view key) {
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '"';
    out_ += key;
    out_ += "\":";
    return out_;
  }

  std::string& out_;
  bool first_ = true;
};

}  // namespace agentrt::core
