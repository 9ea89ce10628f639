// The request a provider plugin is given (sdk: agentrt_provider_complete): JSON text with
// the keys in sorted order and no spaces, what nlohmann's dump() writes.
#pragma once

#include "core/runs/context_window.h"

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::core {

// {"max_tokens"?,"messages":[{"content":[...],"role":"..."}],"model","temperature"?}.
// Each message goes with its content as the store keeps it (content_text). For a model that
// `takes_images` not, each image part of a stored message (one sent earlier in the session, to a
// model that did) goes as the text part kImageLeftOut: a new message with one is refused before
// (check_model_accepts), and a session's past is not to be refused with each run.
inline constexpr const char* kImageLeftOut =
    "[an image, left out: this model does not take images]";
std::string provider_request(const RunContext& context, const std::string& model,
                             std::optional<int64_t> max_tokens, std::optional<double> temperature,
                             bool takes_images = true);

}  // namespace agentrt::core
