#include "core/runs/delta_fields.h"

#include "text/json_reader.h"

namespace agentrt::core {

DeltaFields read_delta_fields(std::string_view json) {
  DeltaFields fields;
  text::JsonReader reader;
  simdjson::dom::object members;
  if (reader.parse(json).get(members) != simdjson::SUCCESS) return fields;
  // A key written twice counts as its last, as in nlohmann's objects.
  for (const simdjson::dom::key_value_pair member : members) {
    int64_t count = 0;
    std::string_view text;
    const bool is_text = member.value.get(text) == simdjson::SUCCESS;
    if (member.key == "input_tokens" && member.value.get(count) == simdjson::SUCCESS)
      fields.input_tokens = count;
    else if (member.key == "output_tokens" && member.value.get(count) == simdjson::SUCCESS)
      fields.output_tokens = count;
    else if (member.key == "reason" && is_text)
      fields.reason = std::string(text);
    else if (member.key == "id" && is_text)
      fields.id = std::string(text);
    else if (member.key == "name" && is_text)
      fields.name = std::string(text);
    else if (member.key == "arguments" && is_text)
      fields.arguments = std::string(text);
  }
  return fields;
}

}  // namespace agentrt::core
