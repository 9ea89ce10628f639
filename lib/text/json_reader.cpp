#include "text/json_reader.h"

#include <algorithm>

namespace agentrt::text {

namespace {

// The thread's parser, and whether a reader holds it.
struct ThreadParser {
  simdjson::dom::parser parser;
  bool borrowed = false;
};

ThreadParser& thread_parser() {
  thread_local ThreadParser parser;
  return parser;
}

// Sets a parser up for kMaxDepth containers holding values (simdjson counts a container's
// elements a level below it) and texts of `bytes`, which later parses grow as they need.
simdjson::error_code set_up(simdjson::dom::parser& parser, size_t bytes) {
  if (parser.capacity() != 0) return simdjson::SUCCESS;
  return parser.allocate(std::max(bytes, simdjson::dom::MINIMAL_DOCUMENT_CAPACITY), kMaxDepth + 1);
}

}  // namespace

JsonReader::JsonReader() {
  ThreadParser& thread = thread_parser();
  if (thread.borrowed) return;
  thread.borrowed = true;
  borrowed_ = &thread.parser;
}

JsonReader::~JsonReader() {
  if (borrowed_) thread_parser().borrowed = false;
}

simdjson::simdjson_result<simdjson::dom::element> JsonReader::parse(std::string_view text) {
  // A byte order mark may lead a JSON text (RFC 8259 8.1); nlohmann passes it, as here.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) text.remove_prefix(3);
  simdjson::dom::parser* parser = borrowed_;
  if (!parser || text.size() > kThreadTextBytes) {
    if (!own_) own_ = std::make_unique<simdjson::dom::parser>();
    parser = own_.get();
  }
  if (const simdjson::error_code failed = set_up(*parser, text.size())) return failed;
  return parser->parse(text.data(), text.size(), /*realloc_if_needed=*/true);
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
