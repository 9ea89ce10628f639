#include "core/domain/json_body.h"

#include "core/domain/errors.h"
#include "core/domain/json_duplicates.h"

#include <algorithm>
#include <functional>
#include <string>

namespace agentrt::core {
namespace {

// The position of a parse error as people count it; never the bytes themselves.
std::string describe_position(std::string_view text, std::size_t byte) {
  const std::size_t offset = byte == 0 ? 0 : std::min(byte - 1, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
         std::to_string(offset + 1) + ")";
}

// Whether arrays and objects in `text` nest more than `limit` deep, counted outside
// strings. Text that is not JSON may be counted wrongly; the parse refuses it anyway.
bool nests_deeper_than(std::string_view text, size_t limit) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace

nlohmann::json parse_json_body(std::string_view body) {
  if (body.empty()) throw invalid("request body is empty; expected JSON");
  // nlohmann parses any depth, but copies, compares and writes a value by recursion:
  // 2,000 levels of a memory entry's metadata (12 KB) overflowed a request thread's
  // stack and took agentd down.
  if (nests_deeper_than(body, kMaxJsonDepth))
    throw invalid("request body nests arrays and objects more than " +
                  std::to_string(kMaxJsonDepth) + " levels deep");
  DuplicateKeys duplicates;
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(body, std::ref(duplicates));
  } catch (const nlohmann::json::parse_error& e) {
    throw invalid("request body is not valid JSON: error at " + describe_position(body, e.byte));
  } catch (const nlohmann::json::out_of_range&) {
    // Valid JSON (RFC 8259 sets no range), but past a double, where nlohmann gives up:
    // `1e400`. Its message quotes the number without a position.
    throw invalid("request body holds a number too large to represent (past about 1.8e308)");
  }
  if (!duplicates.first().empty())
    throw invalid("field '" + duplicates.first() + "' appears twice in its object");
  return document;
}

}  // namespace agentrt::core
