#include "text/json_reader.h"

#include <algorithm>

namespace agentrt::text {

JsonReader::JsonReader(size_t max_depth) : max_depth_(max_depth) {}

simdjson::simdjson_result<simdjson::dom::element> JsonReader::parse(std::string_view text) {
  // A byte order mark may lead a JSON text (RFC 8259 8.1); nlohmann passes it, as here.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) text.remove_prefix(3);
  // The first parse sizes the parser with the depth; later ones grow it keeping that.
  if (parser_.capacity() == 0) {
    const size_t capacity = std::max(text.size(), simdjson::dom::MINIMAL_DOCUMENT_CAPACITY);
    if (const simdjson::error_code failed = parser_.allocate(capacity, max_depth_)) return failed;
  }
  return parser_.parse(text.data(), text.size(), /*realloc_if_needed=*/true);
}

simdjson::simdjson_result<simdjson::dom::element> member(simdjson::dom::element object,
                                                         std::string_view key) {
  simdjson::dom::object fields;
  if (object.get(fields) != simdjson::SUCCESS) return simdjson::NO_SUCH_FIELD;
  simdjson::simdjson_result<simdjson::dom::element> found = simdjson::NO_SUCH_FIELD;
  for (const simdjson::dom::key_value_pair field : fields)
    if (field.key == key) found = simdjson::dom::element(field.value);
  return found;
}

simdjson::simdjson_result<simdjson::dom::element> member(
    const simdjson::simdjson_result<simdjson::dom::element>& object, std::string_view key) {
  if (object.error() != simdjson::SUCCESS) return simdjson::NO_SUCH_FIELD;
  return member(object.value_unsafe(), key);
}

std::string_view text_or_empty(simdjson::dom::element value) {
  std::string_view text;
  return value.get(text) == simdjson::SUCCESS ? text : std::string_view();
}

std::string_view text_or_empty(const simdjson::simdjson_result<simdjson::dom::element>& value) {
  std::string_view text;
  return value.get(text) == simdjson::SUCCESS ? text : std::string_view();
}

}  // namespace agentrt::text
