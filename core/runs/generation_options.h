// Generation parameters a run may set beyond max_tokens and temperature: OpenAI's
// (docs/openai-compatible.md), which the bundled providers pass on where their vendor
// has the parameter. A provider plugin built for ABI 1.10 or later is sent each one that
// is set (docs/plugin-author-guide.md); an older one none of them, since it may refuse
// keys it does not know.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::core {

struct GenerationOptions {
  std::optional<double> top_p;              // 0 to 1
  std::optional<double> presence_penalty;   // -2 to 2
  std::optional<double> frequency_penalty;  // -2 to 2
  std::optional<int64_t> seed;
  std::vector<std::string> stop;            // sequences that end the answer; none: the model's
  std::optional<bool> parallel_tool_calls;  // whether one answer may call several tools
};

// The ABI minor version from which a provider plugin is sent GenerationOptions.
inline constexpr uint16_t kGenerationOptionsAbiMinor = 10;

}  // namespace agentrt::core
