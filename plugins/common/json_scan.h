// A forward-only reader for the few fields a stream decoder needs from each event,
// without building a document: strings come back as views into the event when they
// hold no escapes, so a typical chunk costs no allocation at all.
//
// It is a fast path, never the judge. It validates everything it passes over (JSON
// grammar, escapes, surrogate pairs, UTF-8, control characters, trailing bytes) and
// gives up on anything it is not certain nlohmann::json would read the same way: a
// byte order mark, numbers with an exponent or too many digits, very deep nesting.
// A decoder whose scan gave up parses the event with nlohmann instead, so what is
// accepted, refused or read never depends on this file. The provider tests compare
// both on every field the decoders read.
#pragma once

#include "common/escaped_text.h"
#include "common/json_bytes.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers {

// A string read from JSON: a view into the scanned text when it had no escapes,
// otherwise decoded into a buffer of its own that keeps its capacity between events.
// So view() is valid only while the scanned text is. Absent, null and non-string
// values read as "".
class JsonText {
 public:
  std::string_view view() const { return decoded_ ? std::string_view(buffer_) : view_; }
  void clear() {
    decoded_ = false;
    view_ = {};
  }
  void set_view(std::string_view text) {
    decoded_ = false;
    view_ = text;
  }
  // Empties the buffer and makes it what view() shows.
  std::string& buffer() {
    decoded_ = true;
    buffer_.clear();
    return buffer_;
  }
  void assign(std::string_view text) { buffer().assign(text); }
  bool operator==(const JsonText& other) const { return view() == other.view(); }

 private:
  bool decoded_ = false;
  std::string_view view_;
  std::string buffer_;
};

// Reads one JSON text front to back. Every call after a failure fails too, so a
// caller may read linearly and check ok() (or finish()) once at the end.
//
// Objects: enter_object(), then next_key() until it returns false; after each key
// exactly one of the value calls (read_*, skip_value, enter_*) consumes the value.
// Arrays: enter_array(), then next_element() until false, each followed by one value
// call.
class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text);
  // A scanner of `text` that starts inside its outermost object, just after a member
  // that ends at `offset`, for a reader that scanned the bytes before `offset` in an
  // earlier text and knows this one starts with the same: the first call is
  // next_key(). A token that goes on past `offset` (a number's further digits) fails.
  static JsonScanner after_member(std::string_view text, size_t offset) {
    JsonScanner s(text);
    s.p_ += offset;
    return s;  // first_ stays false: a comma or the closing brace must come next
  }

  // The first byte of the next value ('{', '[', '"', 't', 'f', 'n', '-', a digit),
  // or '\0' at the end or after a failure.
  char peek() {
    skip_whitespace();
    return ok_ && p_ < end_ ? *p_ : '\0';
  }

  // Consumes '{' or '[' when the next value is that container; false otherwise
  // (and then nothing is consumed, so the caller can skip the value).
  bool enter_object();
  bool enter_array();
  // The next member's key (decoded), or false at the closing brace or on failure.
  //
  // Inline, as are the calls around it below: a vendor's event is a dozen short
  // members, and out of line the calls cost more than the bytes (an OpenAI chunk took
  // 4,100 instructions, a third of them calls and returns; bench/README.md, session 22).
  bool next_key(std::string_view& key) {
    if (!next_member_start('}')) return false;
    // Most keys hold only bytes that stand for themselves, and the colon follows at
    // once: such a key is what stands between its quotes.
    if (p_ < end_ && *p_ == '"') {
      const char* q = plain_end(p_ + 1);
      if (end_ - q >= 2 && q[0] == '"' && q[1] == ':') {
        key = std::string_view(p_ + 1, static_cast<size_t>(q - p_ - 1));
        p_ = q + 2;
        return true;
      }
    }
    return next_key_slowly(key);
  }
  // True when another element follows, false at the closing bracket or on failure.
  bool next_element() { return next_member_start(']'); }

  // Validates and passes over any value.
  bool skip_value() {
    // A string of bytes that stand for themselves, the most common value skipped
    // (ids, names, fingerprints), is passed here; anything else by skip().
    if (peek() == '"') {
      const char* q = plain_end(p_ + 1);
      if (q < end_ && *q == '"') {
        p_ = q + 1;
        return true;
      }
    }
    return skip(0);
  }
  // A string value into `out`; any other value is passed over and reads as "".
  bool read_text(JsonText& out);
  // A string value decoded straight into `out`, for text that is kept; false (with
  // nothing consumed) when the next value is not a string.
  bool read_string(std::string& out);
  // A string value as it stands escaped, for text that is passed on into other JSON:
  // `out` borrows the scanned text when it is escaped as EscapedText keeps it, and
  // holds its own copy in that form otherwise. False (with nothing consumed) when the
  // next value is not a string.
  bool read_escaped(EscapedText& out);
  // An integer into `out`; any other value (null, string, a fraction) reads as
  // absent, as nlohmann's is_number_integer() would have it.
  bool read_int(std::optional<int64_t>& out);
  // true or false into `out`; any other value reads as absent.
  bool read_bool(std::optional<bool>& out);

  // When the next value is an object, calls on_member(key) for each member, which
  // must consume the member's value; any other value is passed over. False when the
  // value was not an object.
  template <class OnMember>
  bool members(OnMember&& on_member) {
    if (!enter_object()) {
      skip_value();
      return false;
    }
    std::string_view key;
    while (next_key(key)) on_member(key);
    return true;
  }
  // The string member `name` of an object value into `out`: "" when the value is not
  // an object, has no such member, or its value is not a string.
  void read_member_text(std::string_view name, JsonText& out);

  // For a reader that knows the shape a writer gives: when the next bytes, after any
  // whitespace, are `bytes`, consumes them and returns true; otherwise consumes nothing
  // but that whitespace. Inline, so that a literal's bytes are compared in a few loads
  // instead of a call to memcmp: a long session's read makes three or four of these a
  // message, and out of line they were a tenth of its instructions.
  bool consume(std::string_view bytes) {
    skip_whitespace();
    if (!ok_ || static_cast<size_t>(end_ - p_) < bytes.size() ||
        std::memcmp(p_, bytes.data(), bytes.size()) != 0)
      return false;
    p_ += bytes.size();
    return true;
  }
  // Where the scan stands, and the way back there, for a reader that tried a shape and
  // met another. Going back undoes nothing but the position: not a failure.
  const char* position() const { return p_; }
  void rewind(const char* position) { p_ = position; }

  // True when nothing failed and only whitespace remains after the value.
  bool finish();
  bool ok() const { return ok_; }

 private:
  bool fail();
  void skip_whitespace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  const char* plain_end(const char* from) const {
    return reinterpret_cast<const char*>(skip_plain(reinterpret_cast<const unsigned char*>(from),
                                                    reinterpret_cast<const unsigned char*>(end_)));
  }
  // Before an item of the container that `close` ends: false (consumed) at its end,
  // true when an item follows. A comma separates items; none may trail.
  bool next_member_start(char close) {
    if (!ok_) return false;
    skip_whitespace();
    if (p_ == end_) return fail();
    if (first_) {
      first_ = false;
      if (*p_ != close) return true;
      ++p_;
      return false;
    }
    if (*p_ == close) {
      ++p_;
      return false;
    }
    if (*p_ != ',') return fail();
    ++p_;
    return true;
  }
  bool next_key_slowly(std::string_view& key);
  bool scan_string(std::string_view* raw, bool* escaped, bool* as_written = nullptr);
  bool decode_string(std::string_view raw, bool escaped, std::string& key_or_text_buffer,
                     std::string_view& out);
  bool scan_number(std::optional<int64_t>* value);
  bool scan_literal(std::string_view word);
  bool skip(int depth);

  const char* p_;
  const char* end_;
  bool ok_ = true;
  bool first_ = false;  // just inside a container: no comma before the next item
  std::string key_buffer_;
};

}  // namespace agentrt::providers
