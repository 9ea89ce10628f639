#include "common/chat_request.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers {
namespace {

using simdjson::SUCCESS;
using simdjson::dom::array;
using simdjson::dom::element;

[[noreturn]] void invalid(const std::string& what) {
  throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, "request: " + what);
}

// Where an error is, built only when there is one.
std::string message_at(size_t index) {
  return "messages[" + std::to_string(index) + "]";
}

std::string part_at(size_t message, size_t part) {
  return message_at(message) + ".content[" + std::to_string(part) + "]";
}

std::string_view required_text(element value, const char* key, size_t message, size_t index) {
  std::string_view text;
  if (text::member(value, key).get(text) != SUCCESS)
    invalid(part_at(message, index) + "." + key + " must be a string");
  return text;
}

ContentPart read_part(element value, size_t message, size_t index) {
  std::string_view type;
  if (text::member(value, "type").get(type) != SUCCESS)
    invalid(part_at(message, index) + " must be an object with a string 'type'");
  ContentPart part;
  if (type == "text") {
    part.text = required_text(value, "text", message, index);
  } else if (type == "image_url") {
    part.kind = ContentPart::Kind::image;
    part.url = required_text(value, "url", message, index);
  } else if (type == "tool_call") {
    part.kind = ContentPart::Kind::tool_call;
    part.id = required_text(value, "id", message, index);
    part.name = required_text(value, "name", message, index);
    part.arguments = required_text(value, "arguments", message, index);
  } else if (type == "tool_result") {
    part.kind = ContentPart::Kind::tool_result;
    part.id = required_text(value, "tool_call_id", message, index);
    part.text = required_text(value, "output", message, index);
    bool is_error = false;
    if (text::member(value, "is_error").get(is_error) == SUCCESS) part.is_error = is_error;
  } else {
    invalid(part_at(message, index) + ".type '" + std::string(type) +
            "' is not text, image_url, tool_call or tool_result");
  }
  return part;
}

ChatMessage read_message(element value, size_t index) {
  if (!value.is_object()) invalid(message_at(index) + " must be an object");
  ChatMessage message;
  if (text::member(value, "role").get(message.role) != SUCCESS)
    invalid(message_at(index) + ".role must be a string");
  if (message.role != "user" && message.role != "assistant" && message.role != "system" &&
      message.role != "tool")
    invalid(message_at(index) + ".role '" + std::string(message.role) +
            "' is not system, user, assistant or tool");
  const auto content = text::member(value, "content");
  std::string_view whole;
  array parts;
  if (content.get(whole) == SUCCESS) {
    ContentPart part;
    part.text = whole;
    message.parts.push_back(part);
  } else if (content.get(parts) == SUCCESS) {
    message.parts.reserve(parts.size());
    for (const element part : parts)
      message.parts.push_back(read_part(part, index, message.parts.size()));
  } else {
    invalid(message_at(index) + ".content must be an array of parts");
  }
  return message;
}

// Absent and null are none.
bool given(const simdjson::simdjson_result<element>& value) {
  return value.error() == SUCCESS && !value.value_unsafe().is_null();
}

ToolDefinition read_tool(element value, size_t index) {
  const std::string where = "tools[" + std::to_string(index) + "]";
  ToolDefinition tool;
  if (text::member(value, "name").get(tool.name) != SUCCESS || tool.name.empty())
    invalid(where + ".name must be a non-empty string");
  tool.description = text::text_or_empty(text::member(value, "description"));
  simdjson::dom::object parameters;
  const auto given_parameters = text::member(value, "parameters");
  if (given_parameters.error() == simdjson::NO_SUCH_FIELD)
    tool.parameters = R"({"type":"object"})";
  else if (given_parameters.get(parameters) == SUCCESS)
    tool.parameters = simdjson::minify(parameters);
  else
    invalid(where + ".parameters must be an object");
  return tool;
}

ToolChoice read_tool_choice(element value) {
  ToolChoice choice;
  std::string_view word;
  if (value.get(word) == SUCCESS) {
    if (word == "auto") return choice;
    if (word == "none")
      choice.mode = ToolChoice::Mode::none;
    else if (word == "required")
      choice.mode = ToolChoice::Mode::required;
    else
      invalid("'tool_choice' '" + std::string(word) + "' is not auto, none or required");
    return choice;
  }
  if (text::text_or_empty(text::member(value, "type")) != "tool" ||
      text::member(value, "name").get(choice.name) != SUCCESS)
    invalid("'tool_choice' must be auto, none, required or {\"type\":\"tool\",\"name\"}");
  choice.mode = ToolChoice::Mode::tool;
  return choice;
}

std::optional<double> optional_number(element request, std::string_view key) {
  const auto value = text::member(request, key);
  if (!given(value)) return std::nullopt;
  double number = 0;
  if (value.get(number) != SUCCESS) invalid("'" + std::string(key) + "' must be a number");
  return number;
}

// The generation options of ABI 1.10, each absent unless the client set it.
void read_generation(element request, ChatRequest& out) {
  out.top_p = optional_number(request, "top_p");
  out.presence_penalty = optional_number(request, "presence_penalty");
  out.frequency_penalty = optional_number(request, "frequency_penalty");
  const auto seed = text::member(request, "seed");
  if (given(seed)) {
    int64_t value = 0;
    if (seed.get(value) != SUCCESS) invalid("'seed' must be an integer");
    out.seed = value;
  }
  const auto stop = text::member(request, "stop");
  if (given(stop)) {
    array sequences;
    if (stop.get(sequences) != SUCCESS) invalid("'stop' must be an array of strings");
    for (const element sequence : sequences) {
      std::string_view text;
      if (sequence.get(text) != SUCCESS) invalid("'stop' must be an array of strings");
      out.stop.push_back(text);
    }
  }
  const auto parallel = text::member(request, "parallel_tool_calls");
  if (given(parallel)) {
    bool value = true;
    if (parallel.get(value) != SUCCESS) invalid("'parallel_tool_calls' must be a boolean");
    out.parallel_tool_calls = value;
  }
}

// Each result gets the name of the call it answers, which some vendors ask for.
void name_results(std::vector<ChatMessage>& messages) {
  for (size_t m = 0; m < messages.size(); ++m)
    for (ContentPart& result : messages[m].parts) {
      if (result.kind != ContentPart::Kind::tool_result) continue;
      for (size_t earlier = m; earlier-- > 0 && result.name.empty();)
        for (const ContentPart& call : messages[earlier].parts)
          if (call.kind == ContentPart::Kind::tool_call && call.id == result.id)
            result.name = call.name;
    }
}

}  // namespace

ChatRequest parse_chat_request(std::string_view request_json) {
  ChatRequest out;
  element request;
  if (out.reader->parse(request_json).get(request) != SUCCESS || !request.is_object())
    invalid("not a JSON object");
  std::string_view model;
  if (text::member(request, "model").get(model) != SUCCESS || model.empty())
    invalid("'model' must be a non-empty string");
  out.model = std::string(model);
  array messages;
  if (text::member(request, "messages").get(messages) != SUCCESS || messages.size() == 0)
    invalid("'messages' must be a non-empty array");
  out.messages.reserve(messages.size());
  for (const element message : messages)
    out.messages.push_back(read_message(message, out.messages.size()));
  const auto max_tokens = text::member(request, "max_tokens");
  if (given(max_tokens)) {
    int64_t max = 0;
    if (max_tokens.get(max) != SUCCESS || max <= 0)
      invalid("'max_tokens' must be a positive integer");
    out.max_tokens = max;
  }
  const auto temperature = text::member(request, "temperature");
  if (given(temperature)) {
    double number = 0;
    if (temperature.get(number) != SUCCESS) invalid("'temperature' must be a number");
    out.temperature = number;
  }
  read_generation(request, out);
  name_results(out.messages);
  array tools;
  const auto given_tools = text::member(request, "tools");
  if (given(given_tools)) {
    if (given_tools.get(tools) != SUCCESS) invalid("'tools' must be an array");
    for (const element tool : tools) out.tools.push_back(read_tool(tool, out.tools.size()));
  }
  const auto tool_choice = text::member(request, "tool_choice");
  if (given(tool_choice)) out.tool_choice = read_tool_choice(tool_choice.value_unsafe());
  return out;
}

size_t body_size_hint(const ChatRequest& chat) {
  constexpr size_t kAroundEachMessage = 32;  // {"content":[...],"role":"assistant"},
  constexpr size_t kAroundEachPart = 32;     // {"text":"...","type":"text"},
  size_t size = 256 + chat.model.size();
  for (const ChatMessage& message : chat.messages) {
    size += kAroundEachMessage;
    // Escapes may lengthen a text; the body grows past the hint then.
    for (const ContentPart& part : message.parts)
      size += kAroundEachPart + part.text.size() + part.url.size() + part.id.size() +
              part.name.size() + part.arguments.size();
  }
  for (const ToolDefinition& tool : chat.tools)
    size += 64 + tool.name.size() + tool.description.size() + tool.parameters.size();
  return size;
}

bool has_tool_calls(const ChatMessage& message) {
  for (const ContentPart& part : message.parts)
    if (part.kind == ContentPart::Kind::tool_call) return true;
  return false;
}

std::string joined_text(const ChatMessage& message, std::string_view separator) {
  std::string joined;
  bool first = true;
  for (const ContentPart& part : message.parts) {
    if (part.kind != ContentPart::Kind::text) continue;
    if (!first) joined += separator;
    first = false;
    joined += part.text;
  }
  return joined;
}

}  // namespace agentrt::providers
