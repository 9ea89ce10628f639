#include "common/json_writer.h"

#include "common/json_bytes.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace agentrt::providers {
namespace {

// As nlohmann's serializer escapes a byte below 0x20, a quote or a backslash.
void append_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(escape, sizeof escape);
    }
  }
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

// Runs of bytes that stand for themselves (printable ASCII but '"' and '\\', and
// well-formed UTF-8) are copied whole; the rest is escaped as dump() escapes it. Text
// of a model's answers has newlines, quotes and letters past ASCII in nearly every
// message, and nlohmann took a copy of each such text and went through it byte by byte:
// on a session of 580 such messages, 0.9 ms of the plugin's CPU a request
// (bench/README.md). Text that is not UTF-8 still goes to nlohmann, to throw as before.
void JsonWriter::append_string(std::string_view text) {
  const size_t start = out_.size();
  out_ += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  const auto* run = p;  // bytes from here on are not in out_ yet
  while ((p = skip_plain(p, end)) < end) {
    if (*p >= 0x80) {
      const size_t length = utf8_length(p, end);
      if (length == 0) {
        out_.resize(start);
        out_ += nlohmann::json(std::string(text)).dump();
        return;
      }
      p += length;
    } else {
      out_.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
      append_escape(out_, *p);
      run = ++p;
    }
  }
  out_.append(reinterpret_cast<const char*>(run), static_cast<size_t>(end - run));
  out_ += '"';
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
