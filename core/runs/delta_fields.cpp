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
    std::string_view reason;
    if (member.key == "input_tokens" && member.value.get(count) == simdjson::SUCCESS)
      fields.input_tokens = count;
    else if (member.key == "output_tokens" && member.value.get(count) == simdjson::SUCCESS)
      fields.output_tokens = count;
    else if (member.key == "reason" && member.value.get(reason) == simdjson::SUCCESS)
      fields.reason = std::string(reason);
  }
  return fields;
}

}  // namespace agentrt::core
