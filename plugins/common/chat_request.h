// The engine's completion request, parsed once and checked, so that each vendor's
// translation works from a typed value instead of re-validating JSON. Its texts are
// views into the request's own reader: a ChatRequest is valid as long as it exists,
// whatever happens to the text it was read from.
#pragma once

#include "text/json_reader.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers {

struct ContentPart {
  enum class Kind { text, image };
  Kind kind = Kind::text;
  std::string_view text;  // Kind::text
  std::string_view url;   // Kind::image: https://... or data:<media type>;base64,...
};

struct ChatMessage {
  std::string_view role;  // "system", "user" or "assistant"
  std::vector<ContentPart> parts;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;

  // What the views above point into.
  std::unique_ptr<text::JsonReader> reader = std::make_unique<text::JsonReader>();
};

// Parses {"model","messages":[{"role","content":[parts] | "text"}],"max_tokens"?,
// "temperature"?}. Keys it does not know are ignored: newer engines may send more.
// Throws sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT) naming what is wrong.
ChatRequest parse_chat_request(std::string_view request_json);

// Room enough for a vendor's body of `chat`, to reserve at once.
size_t body_size_hint(const ChatRequest& chat);

// The texts of `message`'s text parts joined with `separator`.
std::string joined_text(const ChatMessage& message, std::string_view separator);

}  // namespace agentrt::providers
