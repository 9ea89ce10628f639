// JSON text written directly, for the documents a request builds only to serialise
// them at once (events, the provider request, /chat's answer, log lines). Building
// an nlohmann object for those cost about 300 of the 790 allocations of a /chat:
// every key, every node, and the stack nlohmann's destructor allocates to free it.
// The text is the same as nlohmann's dump with ensure_ascii off and invalid UTF-8
// replaced by U+FFFD; callers write keys in sorted order, as dump does.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

// Appends `text` as a JSON string literal.
void append_json_string(std::string& out, std::string_view text);
// Appends a JSON integer.
void append_json_int(std::string& out, int64_t value);
// Appends `value` as nlohmann's dump writes it (invalid UTF-8 replaced).
void append_json_value(std::string& out, const nlohmann::json& value);
// Appends the content part {"type":"text","text":`text`} as append_json_value writes
// it: {"text":...,"type":"text"}.
void append_text_part(std::string& out, std::string_view text);

// For readers of the few forms this program writes itself, which take them without a
// parser and leave anything else to nlohmann: when `text` starts with `literal`, drops
// it and returns true.
inline bool take_prefix(std::string_view& text, std::string_view literal) {
  if (text.substr(0, literal.size()) != literal) return false;
  text.remove_prefix(literal.size());
  return true;
}
// The same at the end: when `text` ends with `literal`, drops it and returns true.
inline bool take_suffix(std::string_view& text, std::string_view literal) {
  if (text.size() < literal.size() || text.substr(text.size() - literal.size()) != literal)
    return false;
  text.remove_suffix(literal.size());
  return true;
}
// Whether `text` stands for itself inside a JSON string: printable ASCII but the quote
// and the backslash, so no escape, control byte or UTF-8 sequence needs reading.
bool stands_for_itself(std::string_view text);
// The length of the well-formed UTF-8 sequence that starts at text[i] (a byte of 0x80 or
// more), or 0 when it is ill-formed: overlong forms, surrogates and anything past
// U+10FFFF are, as for nlohmann's parser.
size_t utf8_sequence_length(std::string_view text, size_t i);
// Whether all of `text` is well-formed UTF-8 in that sense: what nlohmann can write.
bool is_utf8(std::string_view text);
// The characters (code points) of UTF-8 `text`: what a limit "in characters" counts, as
// JSON Schema's maxLength does.
inline size_t utf8_length(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// For readers of the strings this program writes (append_json_string's form): the size
// of the text that `escaped`, what stands between the quotes, decodes to, and how many of
// its characters take three bytes in UTF-8. Only when every escape is one that form has
// (a short one, or \u00xx for another control byte) and every other byte is printable
// ASCII or well-formed UTF-8; nullopt otherwise, for the caller to read it with nlohmann.
struct DecodedSize {
  size_t bytes = 0;
  size_t three_byte_characters = 0;
};
std::optional<DecodedSize> decoded_size(std::string_view escaped);

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
