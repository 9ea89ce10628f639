#include "core/domain/json_text.h"

#include "text/utf8.h"

#include <charconv>

namespace agentrt::core {

std::string json_excerpt(const nlohmann::json& value, size_t max_bytes) {
  std::string text;
  append_json_value(text, value);
  if (text.size() <= max_bytes) return text;
  constexpr std::string_view kEllipsis = "...";
  text.resize(
      text::utf8_prefix(text, max_bytes > kEllipsis.size() ? max_bytes - kEllipsis.size() : 0)
          .size());
  return text.append(kEllipsis);
}

void append_text_part(std::string& out, std::string_view text) {
  out += R"({"text":)";
  append_json_string(out, text);
  out += R"(,"type":"text"})";
}

void append_json_int(std::string& out, int64_t value) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}

// Containers, strings and integers are written here, so that a message's content (an
// array of parts) costs no nlohmann serializer, which allocates a 512-byte indent string
// and calls localeconv() each time it is made. Floats, whose shortest round-trip form
// is nlohmann's own, and binary values still go through dump.
void append_json_value(std::string& out, const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::string:
      return append_json_string(out, value.get_ref<const std::string&>());
    case Type::number_integer:
      return append_json_int(out, value.get<int64_t>());
    case Type::number_unsigned: {
      char digits[24];
      out.append(digits, std::to_chars(digits, digits + sizeof digits, value.get<uint64_t>()).ptr);
      return;
    }
    case Type::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case Type::null:
      out += "null";
      return;
    case Type::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) out += ',';
        first = false;
        append_json_value(out, element);
      }
      out += ']';
      return;
    }
    case Type::object: {
      out += '{';
      bool first = true;
      for (auto member = value.begin(); member != value.end(); ++member) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, member.key());
        out += ':';
        append_json_value(out, member.value());
      }
      out += '}';
      return;
    }
    default:
      out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

}  // namespace agentrt::core
