// What a usage, a finish or a tool-call delta carries: {"input_tokens":8,
// "output_tokens":16}, {"reason":"stop"}, {"id","name","arguments"}. Only top-level members count;
// a delta that is not valid JSON carries nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::core {

struct DeltaFields {
  std::optional<int64_t> input_tokens, output_tokens;
  std::optional<std::string> reason;
  std::optional<std::string> id, name, arguments;
};

DeltaFields read_delta_fields(std::string_view json);

}  // namespace agentrt::core
