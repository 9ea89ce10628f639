// The fields of one log line, written as JSON text as they are added. Every request
// writes a line; collected in an nlohmann object (a map node, a key and a value allocated
// a field, then walked again to be written) that line costs about 7% of a /chat's
// instructions (bench/README.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::core {

// Whether `key` is one every line has of its own (time, level, msg): a field given such
// a name is written as "fields.<key>", so that no line has a key twice.
bool is_line_key(std::string_view key);

class LogFields {
 public:
  // Keys are the caller's literals, each added once a line (is_line_key renames).
  LogFields& text(std::string_view key, std::string_view value);
  LogFields& integer(std::string_view key, int64_t value);
  // A duration in milliseconds with three decimals, from microseconds: 1234 -> 1.234.
  LogFields& millis(std::string_view key, int64_t micros);
  // `more`'s fields after these.
  LogFields& append(const LogFields& more);

  // The members as JSON text, each after a comma: ,"a":1,"b":"x".
  std::string_view members() const { return text_; }

 private:
  std::string& key(std::string_view key);

  std::string text_;
};

}  // namespace agentrt::core
