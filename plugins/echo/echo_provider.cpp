// The echo provider: answers with the last user message, streamed back in several
// deltas (cut at max_tokens, as a model's answer is), and counts usage the way the
// engine estimates tokens (4 bytes a token). It needs no network, which makes it the
// offline default, and it is the reference example for plugin authors: it uses nothing
// but the SDK. So that the offline default can show a tool round trip, it calls a tool
// when asked in so many words ("call <name> <JSON object>"), or when tool_choice makes
// it, and answers a tool message with the results (docs/plugin-author-guide.md, "The
// echo provider").
#include <agentrt/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using agentrt::sdk::Error;
using nlohmann::json;

int64_t estimate_tokens(size_t bytes) {
  return static_cast<int64_t>((bytes + 3) / 4);
}

json parse_object(const std::string& text, const char* what) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object())
    throw Error(AGENTRT_ERR_INVALID_ARGUMENT, std::string(what) + " is not a JSON object");
  return doc;
}

// The text of every text part of one message, joined.
std::string message_text(const json& message) {
  std::string text;
  const json& content = message.value("content", json());
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return text;
  for (const json& part : content) {
    if (part.is_object() && part.value("type", "") == "text" && part.contains("text") &&
        part["text"].is_string())
      text += part["text"].get<std::string>();
  }
  return text;
}

// The parts of `message` of `type`, or none when its content is a plain string.
std::vector<json> parts_of(const json& message, const char* type) {
  std::vector<json> parts;
  const json& content = message.value("content", json());
  if (!content.is_array()) return parts;
  for (const json& part : content)
    if (part.is_object() && part.value("type", "") == type) parts.push_back(part);
  return parts;
}

// What the engine counts as a message's input: its texts, call arguments and results.
size_t input_bytes_of(const json& message) {
  size_t bytes = message_text(message).size();
  for (const json& call : parts_of(message, "tool_call"))
    bytes += call.value("arguments", "").size();
  for (const json& result : parts_of(message, "tool_result"))
    bytes += result.value("output", "").size();
  return bytes;
}

// "<name> returned: <output>" ("failed" for an error result), a line a result, in
// order; the name is that of the call the result answers, else its id.
std::string results_answer(const json& messages) {
  std::string answer;
  for (const json& result : parts_of(messages.back(), "tool_result")) {
    const std::string id = result.value("tool_call_id", "");
    std::string name = id;
    for (const json& message : messages)
      for (const json& call : parts_of(message, "tool_call"))
        if (call.value("id", "") == id) name = call.value("name", id);
    if (!answer.empty()) answer += '\n';
    answer += name + (result.value("is_error", false) ? " failed: " : " returned: ") +
              result.value("output", "");
  }
  return answer;
}

struct ToolCall {
  std::string name, arguments;
};

// "call <name>" or "call <name> <JSON object>", with spaces around; anything else, or
// arguments that are not a JSON object, is no call.
std::optional<ToolCall> call_in(const std::string& text) {
  const size_t start = text.find_first_not_of(' ');
  if (start == std::string::npos || text.compare(start, 5, "call ") != 0) return std::nullopt;
  const size_t name_at = text.find_first_not_of(' ', start + 5);
  if (name_at == std::string::npos) return std::nullopt;
  const size_t name_end = std::min(text.find(' ', name_at), text.size());
  ToolCall call{text.substr(name_at, name_end - name_at), "{}"};
  const size_t rest = text.find_first_not_of(' ', name_end);
  if (rest == std::string::npos) return call;
  call.arguments = text.substr(rest, text.find_last_not_of(' ') + 1 - rest);
  if (!json::parse(call.arguments, nullptr, /*allow_exceptions=*/false).is_object())
    return std::nullopt;
  return call;
}

// The call the request makes echo make, if any: none without tools, when tool_choice
// is "none", or when the last message is a tool message (whose results echo answers);
// the call the last user message asks for, when it names an offered tool (and
// tool_choice names no other); else, when tool_choice asks for a call, the named tool
// ("required": the first offered) with {}.
std::optional<ToolCall> call_to_make(const json& request, const json& messages) {
  const json tools = request.value("tools", json());
  const json choice = request.value("tool_choice", json("auto"));
  const std::string role = messages.back().value("role", "");
  if (!tools.is_array() || tools.empty() || choice == "none" || role == "tool") return std::nullopt;
  const std::string named = choice.is_object() ? choice.value("name", "") : "";
  std::optional<ToolCall> asked =
      role == "user" ? call_in(message_text(messages.back())) : std::nullopt;
  const bool offered = asked && std::any_of(tools.begin(), tools.end(), [&](const json& tool) {
                         return tool.is_object() && tool.value("name", "") == asked->name;
                       });
  if (offered && (named.empty() || named == asked->name)) return asked;
  if (!named.empty()) return ToolCall{named, "{}"};
  if (choice == "required" && tools[0].is_object())
    return ToolCall{tools[0].value("name", ""), "{}"};
  return std::nullopt;
}

// Splits after each space so that concatenated fragments give back the text exactly.
std::vector<std::string> fragments(const std::string& text, size_t max_fragments) {
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ' ') {
      words.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < text.size()) words.push_back(text.substr(start));
  if (words.size() <= max_fragments) return words;
  std::vector<std::string> merged(max_fragments);
  for (size_t i = 0; i < words.size(); ++i) merged[i * max_fragments / words.size()] += words[i];
  return merged;
}

// The longest start of `text` of at most `bytes` bytes that ends at a character's end.
std::string utf8_prefix(const std::string& text, size_t bytes) {
  if (text.size() <= bytes) return text;
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  return text.substr(0, bytes);
}

class EchoProvider : public agentrt::sdk::Provider {
 public:
  EchoProvider(const agentrt::sdk::Host& host, const std::string& config_json) {
    json config = parse_object(config_json.empty() ? "{}" : config_json, "echo config");
    for (const auto& [key, value] : config.items()) {
      if (key == "delay_ms" && value.is_number_unsigned()) {
        delay_ms_ = value.get<unsigned>();
      } else if (key == "max_fragments" && value.is_number_unsigned() &&
                 value.get<unsigned>() > 0) {
        max_fragments_ = value.get<unsigned>();
      } else if (key == "models" && value.is_array()) {
        models_ = value;
      } else if (key != "name" && key != "base_url" && key != "api_key_ref") {
        throw Error(AGENTRT_ERR_INVALID_ARGUMENT,
                    "echo config: unknown or invalid key '" + key + "'");
      }
    }
    if (models_.empty())
      models_ = json::array({{{"id", "echo"},
                              {"context_window", 8192},
                              {"supports_vision", false},
                              {"supports_tools", true}}});
    host.log(AGENTRT_LOG_DEBUG, "echo provider ready");
  }

  std::string list_models() override { return json{{"models", models_}}.dump(); }

  void complete(const std::string& request_json, agentrt::sdk::Sink& sink) override {
    json request = parse_object(request_json, "request");
    const json& messages = request.value("messages", json());
    if (!messages.is_array() || messages.empty())
      throw Error(AGENTRT_ERR_INVALID_ARGUMENT, "messages must be a non-empty array");
    size_t input_bytes = 0;
    std::string answer;
    for (const json& message : messages) {
      input_bytes += input_bytes_of(message);
      if (message.value("role", "") == "user") answer = message_text(message);
    }
    if (std::optional<ToolCall> call = call_to_make(request, messages))
      return make_call(*call, "call_echo_" + std::to_string(messages.size()), input_bytes, sink);
    if (messages.back().value("role", "") == "tool") answer = results_answer(messages);
    stream_answer(request, answer, input_bytes, sink);
  }

 private:
  // One call, after the delay a fragment would wait, and the finish that says the
  // model waits for its result.
  void make_call(const ToolCall& call, const std::string& id, size_t input_bytes,
                 agentrt::sdk::Sink& sink) const {
    if (delay_ms_ > 0) wait(sink);
    if (!sink.tool_call(id, call.name, call.arguments) ||
        !sink.usage(estimate_tokens(input_bytes),
                    estimate_tokens(call.name.size() + call.arguments.size())) ||
        !sink.finish("tool_use"))
      throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
  }

  void stream_answer(const json& request, std::string answer, size_t input_bytes,
                     agentrt::sdk::Sink& sink) const {
    // max_tokens cuts the answer as a model's limit does, at 4 bytes a token.
    const char* reason = "end_turn";
    const json& max_tokens = request.value("max_tokens", json());
    if (max_tokens.is_number_integer() && max_tokens.get<int64_t>() > 0 &&
        estimate_tokens(answer.size()) > max_tokens.get<int64_t>()) {
      answer = utf8_prefix(answer, static_cast<size_t>(max_tokens.get<int64_t>()) * 4);
      reason = "max_tokens";
    }
    for (const std::string& fragment : fragments(answer, max_fragments_)) {
      if (delay_ms_ > 0) wait(sink);
      if (!sink.text(fragment)) throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
    }
    if (!sink.usage(estimate_tokens(input_bytes), estimate_tokens(answer.size())) ||
        !sink.finish(reason))
      throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
  }

  // Sleeps delay_ms_ in short steps so a cancellation is seen within 10 ms.
  void wait(agentrt::sdk::Sink& sink) const {
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms_);
    while (std::chrono::steady_clock::now() < until) {
      if (sink.cancelled()) throw Error(AGENTRT_ERR_CANCELLED, "cancelled");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  unsigned delay_ms_ = 0;
  unsigned max_fragments_ = 8;
  json models_;
};

}  // namespace

AGENTRT_PLUGIN(EchoProvider, "echo", "1.0.0", "Streams the last user message back; offline default",
               AGENTRT_FLAG_THREAD_SAFE)
