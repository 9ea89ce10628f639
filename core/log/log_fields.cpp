#include "core/log/log_fields.h"

#include "core/domain/json_text.h"

namespace agentrt::core {

bool is_line_key(std::string_view key) {
  return key == "time" || key == "level" || key == "msg";
}

std::string& LogFields::key(std::string_view key) {
  text_ += ',';
  if (is_line_key(key)) {
    append_json_string(text_, "fields." + std::string(key));
  } else {
    append_json_string(text_, key);
  }
  text_ += ':';
  return text_;
}

LogFields& LogFields::text(std::string_view name, std::string_view value) {
  append_json_string(key(name), value);
  return *this;
}

LogFields& LogFields::integer(std::string_view name, int64_t value) {
  append_json_int(key(name), value);
  return *this;
}

LogFields& LogFields::millis(std::string_view name, int64_t micros) {
  std::string& out = key(name);
  if (micros < 0) micros = 0;  // a duration; never seen, but never "-0.-5" either
  append_json_int(out, micros / 1000);
  const int64_t fraction = micros % 1000;
  out += '.';
  out += static_cast<char>('0' + fraction / 100);
  out += static_cast<char>('0' + fraction / 10 % 10);
  out += static_cast<char>('0' + fraction % 10);
  return *this;
}

LogFields& LogFields::append(const LogFields& more) {
  text_ += more.text_;
  return *this;
}

}  // namespace agentrt::core
