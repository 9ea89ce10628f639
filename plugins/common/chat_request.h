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
  enum class Kind { text, image, tool_call, tool_result };
  Kind kind = Kind::text;
  std::string_view text;  // Kind::text; Kind::tool_result: its output
  std::string_view url;   // Kind::image: https://... or data:<media type>;base64,...
  // Kind::tool_call: the call's id; Kind::tool_result: the id of the call it answers.
  std::string_view id;
  // Kind::tool_call: the tool's; Kind::tool_result: that of the call it answers, found
  // among the earlier messages' calls (empty when none has its id).
  std::string_view name;
  std::string_view arguments;  // Kind::tool_call: the model's JSON text, as written
  bool is_error = false;       // Kind::tool_result
};

struct ChatMessage {
  std::string_view role;  // "system", "user", "assistant" or "tool"
  std::vector<ContentPart> parts;
};

// A tool the model may call (ABI 1.8).
struct ToolDefinition {
  std::string_view name;
  std::string_view description;  // empty when none was given
  std::string parameters;        // a JSON Schema object, as compact JSON text
};

struct ToolChoice {
  enum class Mode { automatic, none, required, tool };
  Mode mode = Mode::automatic;
  std::string_view name;  // Mode::tool
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;
  // ABI 1.10: sent only when the client set them; each vendor passes on what it has.
  std::optional<double> top_p, presence_penalty, frequency_penalty;
  std::optional<int64_t> seed;
  std::vector<std::string_view> stop;
  std::optional<bool> parallel_tool_calls;  // only beside tools
  std::vector<ToolDefinition> tools;
  std::optional<ToolChoice> tool_choice;  // none given: the vendor's default (auto)

  // What the views above point into.
  std::unique_ptr<text::JsonReader> reader = std::make_unique<text::JsonReader>();
};

// Parses {"model","messages":[{"role","content":[parts] | "text"}],"max_tokens"?,
// "temperature"?,"tools"?,"tool_choice"?} and the generation options of ABI 1.10
// ("top_p"?,"presence_penalty"?,"frequency_penalty"?,"seed"?,"stop"?,
// "parallel_tool_calls"?) (agentrt_plugin.h, `complete`). Keys it does
// not know are ignored: newer engines may send more.
// Throws sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT) naming what is wrong.
ChatRequest parse_chat_request(std::string_view request_json);

// Room enough for a vendor's body of `chat`, to reserve at once.
size_t body_size_hint(const ChatRequest& chat);

// Whether any message holds a tool call.
bool has_tool_calls(const ChatMessage& message);

// The texts of `message`'s text parts joined with `separator`.
std::string joined_text(const ChatMessage& message, std::string_view separator);

}  // namespace agentrt::providers
