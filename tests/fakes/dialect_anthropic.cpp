// Anthropic Messages: every event has an `event:` line; message_start carries the
// input usage and a placeholder output count, a ping comes early, text arrives as
// content_block_delta/text_delta, message_delta carries the stop reason and the
// cumulative output count, message_stop ends it. Errors: {"type":"error","error":
// {"type","message"},"request_id"}.
#include "tests/fakes/dialect.h"

namespace agentrt::test {
namespace {

using nlohmann::json;

class AnthropicDialect : public Dialect {
 public:
  std::string api_path() const override { return "/v1/messages"; }
  std::string base_path() const override { return ""; }
  std::string stream_content_type() const override { return "text/event-stream; charset=utf-8"; }

  std::optional<Reply> refuse(const RecordedRequest& request,
                              const std::string& required_key) const override {
    std::string key = request.header("x-api-key");
    if (key.empty()) return Reply::failure(401, "", "x-api-key header is required");
    if (!required_key.empty() && key != required_key)
      return Reply::failure(401, "", "invalid x-api-key");
    if (request.header("anthropic-version").empty())
      return Reply::failure(400, "", "anthropic-version: header is required");
    if (auto refused = refuse_common(request, api_path(), false)) return refused;
    json body = request.json();
    if (!body.contains("max_tokens") || !body["max_tokens"].is_number_integer())
      return Reply::failure(400, "", "max_tokens: Field required");
    for (const json& message : body["messages"])
      if (message.value("role", "") == "system")
        return Reply::failure(400, "",
                              "messages: Unexpected role \"system\". The Messages API accepts a "
                              "top-level `system` parameter, not \"system\" as an input message "
                              "role.");
    return std::nullopt;
  }

  std::string error_body(const Reply& reply) const override {
    std::string type = reply.error_type.empty() ? type_for(reply.status) : reply.error_type;
    std::string message = reply.error_message.empty() ? message_for(type) : reply.error_message;
    return json{{"type", "error"},
                {"error", {{"type", type}, {"message", message}}},
                {"request_id", "req_fake"}}
        .dump();
  }

  std::vector<std::string> opening(const StreamContext& ctx, const Reply& reply) const override {
    json message = {{"id", "msg_fake"},        {"type", "message"},        {"role", "assistant"},
                    {"model", ctx.model},      {"content", json::array()}, {"stop_reason", nullptr},
                    {"stop_sequence", nullptr}};
    if (reply.usage) {
      message["usage"] = {{"input_tokens", reply.usage->input_tokens},
                          {"cache_creation_input_tokens", reply.usage->cache_creation_input_tokens},
                          {"cache_read_input_tokens", reply.usage->cache_read_input_tokens},
                          {"output_tokens", 1}};
    }
    return {sse_event(ctx, "message_start", {{"type", "message_start"}, {"message", message}}),
            sse_event(ctx, "content_block_start",
                      {{"type", "content_block_start"},
                       {"index", 0},
                       {"content_block", {{"type", "text"}, {"text", ""}}}}),
            sse_event(ctx, "ping", {{"type", "ping"}})};
  }

  std::string delta(const StreamContext& ctx, const std::string& fragment) const override {
    return sse_event(ctx, "content_block_delta",
                     {{"type", "content_block_delta"},
                      {"index", 0},
                      {"delta", {{"type", "text_delta"}, {"text", fragment}}}});
  }

  std::vector<std::string> closing(const StreamContext& ctx, const Reply& reply) const override {
    json delta = {{"type", "message_delta"},
                  {"delta",
                   {{"stop_reason", reply.finish.empty() ? "end_turn" : reply.finish},
                    {"stop_sequence", nullptr}}}};
    if (reply.usage) delta["usage"] = {{"output_tokens", reply.usage->output_tokens}};
    return {sse_event(ctx, "content_block_stop", {{"type", "content_block_stop"}, {"index", 0}}),
            sse_event(ctx, "message_delta", delta),
            sse_event(ctx, "message_stop", {{"type", "message_stop"}})};
  }

  std::string malformed(const StreamContext& ctx) const override {
    return "event: content_block_delta" + ctx.eol +
           R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta",)" +
           ctx.eol + ctx.eol;
  }

  std::vector<std::string> error_event(const StreamContext& ctx,
                                       const Reply& reply) const override {
    std::string type = reply.error_type.empty() ? "overloaded_error" : reply.error_type;
    std::string message = reply.error_message.empty() ? message_for(type) : reply.error_message;
    return {sse_event(ctx, "error",
                      {{"type", "error"}, {"error", {{"type", type}, {"message", message}}}})};
  }

 private:
  static std::string type_for(int status) {
    switch (status) {
      case 400:
        return "invalid_request_error";
      case 401:
        return "authentication_error";
      case 403:
        return "permission_error";
      case 404:
        return "not_found_error";
      case 413:
        return "request_too_large";
      case 429:
        return "rate_limit_error";
      case 529:
        return "overloaded_error";
      default:
        return "api_error";
    }
  }

  static std::string message_for(const std::string& type) {
    if (type == "overloaded_error") return "Overloaded";
    if (type == "rate_limit_error") return "Number of request tokens has exceeded your rate limit";
    if (type == "authentication_error") return "invalid x-api-key";
    if (type == "permission_error")
      return "Your API key does not have permission to use the specified resource.";
    if (type == "not_found_error") return "Not Found";
    return "Internal server error";
  }
};

}  // namespace

std::unique_ptr<Dialect> make_anthropic_dialect() {
  return std::make_unique<AnthropicDialect>();
}

}  // namespace agentrt::test
