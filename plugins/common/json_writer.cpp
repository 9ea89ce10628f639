#include "common/json_writer.h"

#include "text/json_string.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace agentrt::providers {

// Inside a container, a value needs a comma before it unless it is the first there or
// follows its key. The text is compact, so the last byte written tells which: an
// opening bracket or a key's colon, and nothing else, ends that way.
void JsonWriter::before_value() {
  if (depth_ == 0) return;
  const char last = out_.back();
  if (last != '{' && last != '[' && last != ':') out_ += ',';
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  ++depth_;
}

void JsonWriter::close(char bracket) {
  --depth_;
  out_ += bracket;
}

JsonWriter& JsonWriter::begin_object() {
  open('{');
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  open('[');
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  out_ += '"';
  out_ += name;
  out_ += "\":";
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view value) {
  before_value();
  text::append_json_string(out_, value);
  return *this;
}

JsonWriter& JsonWriter::integer(int64_t value) {
  before_value();
  char digits[24];
  out_.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
  return *this;
}

// nlohmann's shortest form, which vendors have always been sent.
JsonWriter& JsonWriter::number(double value) {
  before_value();
  out_ += nlohmann::json(value).dump();
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
  return *this;
}

}  // namespace agentrt::providers
