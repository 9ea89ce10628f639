// Writes JSON text as it goes, for the request bodies the providers send. Those were
// nlohmann documents built only to be serialised (2% of agentd's CPU per /chat at 16
// concurrent clients), and every image's data URL was copied into the document on
// the way. The text is what nlohmann's dump() writes for the same values; members are
// written in the order given.
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
  // Inside an object, before each member's value.
  JsonWriter& key(std::string_view name);
  // Throws nlohmann's type_error for invalid UTF-8, as dump() does.
  JsonWriter& string(std::string_view text);
  // A string already escaped as string() escapes (EscapedText::json()), written as is.
  JsonWriter& escaped(std::string_view json);
  // One whole value given as literal JSON around an escaped text, such as
  // `{"content":"` + text + `","role":"user"}`: three appends where writing it member
  // by member took a dozen, which was most of the writing of a body of short messages.
  // `open` and `close` are written as they stand.
  JsonWriter& around(std::string_view open, std::string_view escaped, std::string_view close);
  // JSON text written as it stands, no comma added: the rest of a value that around()
  // began, for a caller that joins the end of one value with the start of the next.
  JsonWriter& raw(std::string_view json);
  JsonWriter& integer(int64_t value);
  JsonWriter& number(double value);
  JsonWriter& boolean(bool value);

 private:
  void before_value();
  void open(char bracket);
  void close(char bracket);
  void append_string(std::string_view text);

  std::string& out_;
  size_t depth_ = 0;  // objects and arrays open
};

}  // namespace agentrt::providers
