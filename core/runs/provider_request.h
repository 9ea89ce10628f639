// The request a provider plugin is given (sdk: agentrt_provider_complete): JSON text with
// the keys in sorted order and no spaces, what nlohmann's dump() writes.
#pragma once

#include "core/runs/context_window.h"
#include "core/runs/generation_options.h"
#include "core/runs/tool_spec.h"

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::core {

// {"frequency_penalty"?,"max_tokens"?,"messages":[{"content":[...],"role":"..."}],"model",
// "parallel_tool_calls"?,"presence_penalty"?,"seed"?,"stop"?,"temperature"?,"tool_choice"?,
// "tools"?,"top_p"?}: the GenerationOptions only when `generation` is given (a plugin of
// ABI 1.10 or later), each only when set, and parallel_tool_calls only beside tools.
// Each message goes with its content as the store keeps it (content_text). For a model that
// `takes_images` not, each image part of a stored message (one sent earlier in the session, to a
// model that did) goes as the text part kImageLeftOut: a new message with one is refused before
// (check_model_accepts), and a session's past is not to be refused with each run.
inline constexpr const char* kImageLeftOut =
    "[an image, left out: this model does not take images]";

// The tools a run offers ("tools", "tool_choice", sent only with tools). A model that
// does not `takes_tools` (a plugin built before ABI 1.8) is sent no tools, and the
// session's tool parts as text parts saying what they were, in `user` messages for the
// `tool` ones: the session's past is not to be refused with each run, as for images.
struct ToolOffer {
  const std::vector<ToolSpec>* tools = nullptr;
  std::optional<ToolChoice> choice;
  bool takes_tools = true;
};

std::string provider_request(const RunContext& context, const std::string& model,
                             std::optional<int64_t> max_tokens, std::optional<double> temperature,
                             bool takes_images = true, const ToolOffer& offer = {},
                             const GenerationOptions* generation = nullptr);

}  // namespace agentrt::core
