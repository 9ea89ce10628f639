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
#include <string_view>

namespace agentrt::text {

class JsonReader {
 public:
  // Values nested more than `max_depth` deep are refused (DEPTH_ERROR), a container's
  // elements counting a level below it: at 3, [[1]] and [[[]]] are read, [[[1]]] is not.
  explicit JsonReader(size_t max_depth = simdjson::DEFAULT_MAX_DEPTH);
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  // Parses `text` (copied into the parser's padded buffer, which it keeps), past a byte
  // order mark that leads it. The element
  // and every view read from it are valid until the next parse or until the reader goes.
  // A reader holds memory in proportion to the longest text it parsed, so each owner
  // keeps its own: a stream's decoder one for its events, a request's reader one for it.
  simdjson::simdjson_result<simdjson::dom::element> parse(std::string_view text);

 private:
  simdjson::dom::parser parser_;
  size_t max_depth_;
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
