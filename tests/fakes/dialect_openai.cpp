// OpenAI Chat Completions: chat.completion.chunk events, a role-only first delta with
// "content":"", the finish chunk, the usage chunk with "choices":[] (only when asked
// for with stream_options.include_usage), then the literal "data: [DONE]".
#include "tests/fakes/dialect.h"

namespace agentrt::test {
namespace {

using nlohmann::json;

// A wrong key as OpenAI's 401 quotes it: its head and its last 4 characters, the rest
// starred ("sk-proj-********1234").
std::string masked(const std::string& key) {
  if (key.size() <= 12) return key;
  return key.substr(0, 8) + std::string(key.size() - 12, '*') + key.substr(key.size() - 4);
}

class OpenAiDialect : public Dialect {
 public:
  std::string api_path() const override { return "/v1/chat/completions"; }
  std::string base_path() const override { return "/v1"; }
  std::string stream_content_type() const override { return "text/event-stream; charset=utf-8"; }

  std::optional<Reply> refuse(const RecordedRequest& request,
                              const std::string& required_key) const override {
    std::string auth = request.header("authorization");
    if (auth.empty())
      return Reply::failure(401, "",
                            "You didn't provide an API key. You need to provide your API key "
                            "in an Authorization header using Bearer auth.");
    if (!required_key.empty() && auth != "Bearer " + required_key)
      return Reply::failure(
          401, "invalid_api_key",
          "Incorrect API key provided: " + masked(auth.substr(auth.find(' ') + 1)) +
              ". You can find your API key at "
              "https://platform.openai.com/account/api-keys.");
    return refuse_common(request, api_path(), false);
  }

  std::string error_body(const Reply& reply) const override {
    json error = {{"message", reply.error_message.empty() ? default_message(reply.status)
                                                          : reply.error_message},
                  {"type", type_for(reply)},
                  {"param", nullptr},
                  {"code", reply.error_type.empty() ? json(nullptr) : json(reply.error_type)}};
    return json{{"error", error}}.dump(2);
  }

  std::vector<std::string> opening(const StreamContext& ctx, const Reply&) const override {
    return {chunk(ctx, {{"role", "assistant"}, {"content", ""}, {"refusal", nullptr}}, nullptr)};
  }

  std::string delta(const StreamContext& ctx, const std::string& fragment) const override {
    return chunk(ctx, {{"content", fragment}}, nullptr);
  }

  std::vector<std::string> closing(const StreamContext& ctx, const Reply& reply) const override {
    std::vector<std::string> events = {
        chunk(ctx, json::object(), reply.finish.empty() ? "stop" : reply.finish)};
    if (ctx.include_usage && reply.usage) {
      const FakeUsage& u = *reply.usage;
      json usage = {{"prompt_tokens", u.input_tokens},
                    {"completion_tokens", u.output_tokens},
                    {"total_tokens", u.input_tokens + u.output_tokens},
                    {"prompt_tokens_details", {{"cached_tokens", 0}}}};
      json last = envelope(ctx);
      last["choices"] = json::array();
      last["usage"] = usage;
      events.push_back(sse_data(ctx, last.dump()));
    }
    if (!reply.no_terminator) events.push_back(sse_data(ctx, "[DONE]"));
    return events;
  }

  std::string malformed(const StreamContext& ctx) const override {
    return sse_data(ctx, R"({"id":"chatcmpl-fake","choices":[{"index":0,"delta":{"content":"x"})");
  }

  std::vector<std::string> error_event(const StreamContext& ctx,
                                       const Reply& reply) const override {
    json error = {{"message", reply.error_message.empty()
                                  ? "The server had an error while processing your request."
                                  : reply.error_message},
                  {"type", reply.error_type.empty() ? "server_error" : reply.error_type},
                  {"param", nullptr},
                  {"code", nullptr}};
    return {sse_data(ctx, json{{"error", error}}.dump()), sse_data(ctx, "[DONE]")};
  }

 private:
  static json envelope(const StreamContext& ctx) {
    return {{"id", "chatcmpl-fake"},
            {"object", "chat.completion.chunk"},
            {"created", 1700000000},
            {"model", ctx.model},
            {"system_fingerprint", "fp_fake"}};
  }

  static std::string chunk(const StreamContext& ctx, const json& delta, const json& finish) {
    json c = envelope(ctx);
    c["choices"] = json::array(
        {{{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish}}});
    if (ctx.include_usage) c["usage"] = nullptr;
    return sse_data(ctx, c.dump());
  }

  static std::string type_for(const Reply& reply) {
    if (reply.error_type == "insufficient_quota") return "insufficient_quota";
    switch (reply.status) {
      case 401:
      case 400:
      case 404:
        return "invalid_request_error";
      case 403:
        return "permission_error";
      case 429:
        return "requests";
      default:
        return "server_error";
    }
  }

  static std::string default_message(int status) {
    switch (status) {
      case 429:
        return "Rate limit reached for requests. Please try again later.";
      case 403:
        return "You are not allowed to sample from this model";
      case 400:
        return "Invalid request.";
      default:
        return "The server had an error while processing your request. Sorry about that!";
    }
  }
};

}  // namespace

std::unique_ptr<Dialect> make_openai_dialect() {
  return std::make_unique<OpenAiDialect>();
}

}  // namespace agentrt::test
