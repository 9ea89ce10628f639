#include "common/json_writer.h"

#include "common/escaped_text.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace agentrt::providers {

// Inside a container, a value needs a comma before it unless it is the first there or
// follows its key. The text is compact, so the last byte written tells which: an
// opening bracket or a key's colon, and nothing else, ends that way. (A flag per open
// container, kept in a vector<bool>, cost a push, a pop and bit operations for it.)
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
  append_string(name);
  out_ += ':';
  return *this;
}

// On a throw (text that is not UTF-8) the opening quote is taken back, so `out_`
// holds only whole values.
void JsonWriter::append_string(std::string_view text) {
  const size_t start = out_.size();
  out_ += '"';
  try {
    append_escaped(out_, text);
  } catch (...) {
    out_.resize(start);
    throw;
  }
  out_ += '"';
}

JsonWriter& JsonWriter::string(std::string_view text) {
  before_value();
  append_string(text);
  return *this;
}

JsonWriter& JsonWriter::escaped(std::string_view json) {
  return around("\"", json, "\"");
}

JsonWriter& JsonWriter::around(std::string_view open, std::string_view escaped,
                               std::string_view close) {
  before_value();
  out_ += open;
  out_ += escaped;
  out_ += close;
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::integer(int64_t value) {
  before_value();
  char digits[24];
  out_.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  before_value();
  out_ += nlohmann::json(value).dump();
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
  return *this;
}

}  // namespace agentrt::providers
