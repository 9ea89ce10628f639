// Writes JSON text as it goes, for the request bodies the providers send: building an
// nlohmann document only to serialise it was 2% of agentd's CPU per /chat at 16
// concurrent clients. The text is what nlohmann's dump() writes for the same values;
// members are written in the order given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace agentrt::providers {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // Inside an object, before each member's value. Written as given, unescaped: keys are
  // the caller's literals.
  JsonWriter& key(std::string_view name);
  // Text that is not UTF-8 has U+FFFD in place of its broken bytes (lib/text).
  JsonWriter& string(std::string_view text);
  JsonWriter& integer(int64_t value);
  JsonWriter& number(double value);
  JsonWriter& boolean(bool value);
  // A value that is JSON text already (a tool's parameters schema), written as it is.
  JsonWriter& raw(std::string_view json);

 private:
  void before_value();
  void open(char bracket);
  void close(char bracket);

  std::string& out_;
  size_t depth_ = 0;  // objects and arrays open
};

}  // namespace agentrt::providers
