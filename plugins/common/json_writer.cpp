#include "common/json_writer.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace agentrt::providers {
namespace {

bool plain(std::string_view text) {
  for (unsigned char c : text)
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  return true;
}

}  // namespace

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_element_.empty()) return;
  if (has_element_.back()) out_ += ',';
  has_element_.back() = true;
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  has_element_.push_back(false);
}

void JsonWriter::close(char bracket) {
  has_element_.pop_back();
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
  after_key_ = true;
  return *this;
}

// Most text (roles, models, base64 images, plain prose) needs no escaping and is
// appended as it is; anything else takes nlohmann's own escaping, so the two agree.
void JsonWriter::append_string(std::string_view text) {
  if (plain(text)) {
    out_ += '"';
    out_ += text;
    out_ += '"';
  } else {
    out_ += nlohmann::json(std::string(text)).dump();
  }
}

JsonWriter& JsonWriter::string(std::string_view text) {
  before_value();
  append_string(text);
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
