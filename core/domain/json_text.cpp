#include "core/domain/json_text.h"

#include <charconv>

namespace agentrt::core {
namespace {

constexpr auto kReplaceInvalid = nlohmann::json::error_handler_t::replace;

// Printable ASCII other than '"' and '\\' is written as it is; anything else (control
// characters, multi-byte UTF-8, which may be invalid) takes nlohmann's own escaping.
bool needs_escaping(std::string_view text) {
  for (unsigned char c : text)
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return true;
  return false;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  if (!needs_escaping(text)) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += nlohmann::json(std::string(text)).dump(-1, ' ', false, kReplaceInvalid);
}

void append_json_int(std::string& out, int64_t value) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

void append_json_value(std::string& out, const nlohmann::json& value) {
  if (value.is_string()) return append_json_string(out, value.get_ref<const std::string&>());
  if (value.type() == nlohmann::json::value_t::number_integer)
    return append_json_int(out, value.get<int64_t>());
  out += value.dump(-1, ' ', false, kReplaceInvalid);
}

}  // namespace agentrt::core
