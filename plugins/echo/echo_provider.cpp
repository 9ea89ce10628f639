// The echo provider: answers with the last user message, streamed back in several
// deltas (cut at max_tokens, as a model's answer is), and counts usage the way the
// engine estimates tokens (4 bytes a token). It
// needs no network, which makes it the offline default, and it is the reference example
// for plugin authors: it uses nothing but the SDK.
#include <agentrt/plugin.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
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
      models_ =
          json::array({{{"id", "echo"}, {"context_window", 8192}, {"supports_vision", false}}});
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
      std::string text = message_text(message);
      input_bytes += text.size();
      if (message.value("role", "") == "user") answer = text;
    }
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

 private:
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
