#include "tests/fakes/dialect.h"

#include <algorithm>

namespace agentrt::test {

std::unique_ptr<Dialect> make_openai_dialect();
std::unique_ptr<Dialect> make_anthropic_dialect();
std::unique_ptr<Dialect> make_ollama_dialect();

std::unique_ptr<Dialect> make_dialect(Vendor vendor) {
  switch (vendor) {
    case Vendor::openai:
      return make_openai_dialect();
    case Vendor::anthropic:
      return make_anthropic_dialect();
    case Vendor::ollama:
      return make_ollama_dialect();
  }
  return nullptr;
}

std::string sse_event(const StreamContext& ctx, const std::string& event,
                      const nlohmann::json& data) {
  return "event: " + event + ctx.eol + "data: " + data.dump() + ctx.eol + ctx.eol;
}

std::string sse_data(const StreamContext& ctx, const std::string& data) {
  return "data: " + data + ctx.eol + ctx.eol;
}

std::vector<std::string> split_utf8(const std::string& text, int parts) {
  auto starts_character = [&](size_t i) {
    return (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  };
  size_t characters = 0;
  for (size_t i = 0; i < text.size(); ++i) characters += starts_character(i) ? 1 : 0;
  std::vector<std::string> out;
  if (characters == 0 || parts <= 0) return out;
  const size_t n = std::min(characters, static_cast<size_t>(parts));
  // Part i holds characters [i * characters / n, (i + 1) * characters / n).
  size_t from = 0, seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!starts_character(i)) continue;
    if (seen > 0 && seen == (out.size() + 1) * characters / n) {
      out.push_back(text.substr(from, i - from));
      from = i;
    }
    ++seen;
  }
  out.push_back(text.substr(from));
  return out;
}

std::optional<Reply> refuse_common(const RecordedRequest& request, const std::string& path,
                                   bool stream_default) {
  if (request.method != "POST" || request.path != path)
    return Reply::failure(404, "", "Invalid URL (" + request.method + " " + request.path + ")");
  nlohmann::json body = request.json();
  if (!body.is_object())
    return Reply::failure(400, "", "We could not parse the JSON body of your request.");
  if (!body.contains("model") || !body["model"].is_string())
    return Reply::failure(400, "", "model is required");
  if (!body.contains("messages") || !body["messages"].is_array())
    return Reply::failure(400, "", "messages is required");
  nlohmann::json stream = body.value("stream", nlohmann::json(stream_default));
  if (!stream.is_boolean() || !stream.get<bool>())
    return Reply::failure(400, "", "fake upstream: only streaming requests are implemented");
  return std::nullopt;
}

}  // namespace agentrt::test
