// The reader of every hot path that reads JSON: simdjson's DOM API. A parse validates
// the whole text (grammar, UTF-8, numbers, depth) with kernels picked at run time for
// the CPU, and its strings come back as views, without an allocation a value. Why the DOM
// API rather than On-Demand, and which paths are hot: docs/architecture.md, "JSON".
//
// Cold paths (configuration, admin bodies, stored rows, vendors' error bodies) read with
// nlohmann::json, which builds documents the code then keeps and changes.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace agentrt::text {

// Containers nested deeper than this are refused: no text of the API or of a vendor comes
// near it, and every level costs stack in each recursive walk of a value.
inline constexpr size_t kMaxDepth = 64;

// A parser is costly to set up (its buffers and state, about as much as parsing a short
// text) and cheap to reuse, so each thread keeps one: a reader borrows it while the
// reader lives, when no other reader of the thread holds it. A text longer than
// kThreadTextBytes goes to a parser of the reader's own, so that the thread's stays small
// (it holds memory in proportion to the longest text it read). A reader is used and ends
// on the thread that made it, and a caller that parses text after text (a stream's
// events) makes a reader for each, so that other readers of the thread may borrow the
// parser in between.
class JsonReader {
 public:
  static constexpr size_t kThreadTextBytes = 2048;

  JsonReader();
  ~JsonReader();
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  // Parses `text` (copied into the parser's padded buffer), past a byte order mark that
  // leads it. The element and every view read from it are valid until the reader's next
  // parse or until the reader ends.
  simdjson::simdjson_result<simdjson::dom::element> parse(std::string_view text);

 private:
  simdjson::dom::parser* borrowed_ = nullptr;  // the thread's, while this reader lives
  std::unique_ptr<simdjson::dom::parser> own_;
};

// For readers that take a vendor's fields tolerantly, since vendors add, drop and null
// fields between versions: the member `key` of `object`, or NO_SUCH_FIELD when `object`
// is not an object or has no such member. With a key written twice the last counts, as
// in nlohmann's objects. A value of another type than the one asked for (null included)
// then reads as absent: its get() fails.
simdjson::simdjson_result<simdjson::dom::element> member(simdjson::dom::element object,
                                                         std::string_view key);
// The same through a result: NO_SUCH_FIELD when it holds an error.
simdjson::simdjson_result<simdjson::dom::element> member(
    const simdjson::simdjson_result<simdjson::dom::element>& object, std::string_view key);

// The string at `value`, or "" when it is absent or of another type.
std::string_view text_or_empty(simdjson::dom::element value);
std::string_view text_or_empty(const simdjson::simdjson_result<simdjson::dom::element>& value);

}  // namespace agentrt::text
