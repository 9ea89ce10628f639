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
  std::vector<size_t> starts;  // byte offset of every character
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  std::vector<std::string> out;
  if (starts.empty() || parts <= 0) return out;
  size_t n = std::min(starts.size(), static_cast<size_t>(parts));
  for (size_t i = 0; i < n; ++i) {
    size_t from = starts[i * starts.size() / n];
    size_t to = (i + 1 == n) ? text.size() : starts[(i + 1) * starts.size() / n];
    out.push_back(text.substr(from, to - from));
  }
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
