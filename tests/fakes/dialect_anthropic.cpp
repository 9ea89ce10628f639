// Anthropic Messages: every event has an `event:` line; message_start carries the
// input usage and a placeholder output count, a ping comes early, text arrives as
// content_block_delta/text_delta, message_delta carries the stop reason and the
// cumulative output count, message_stop ends it. A tool call is a tool_use block of
// its own index after the text's (content_block_start with "input":{}, an
// input_json_delta of "" and then the arguments' fragments, content_block_stop), and a
// reply with calls stops with "tool_use". Errors: {"type":"error","error":{"type",
// "message"},"request_id"}; a tool_result that answers no tool_use of the message
// before it, and a tool_use that the next message does not answer, are refused as the
// service refuses them.
#include "tests/fakes/dialect.h"

#include <algorithm>

namespace agentrt::test {
namespace {

using nlohmann::json;

// The blocks of `message` of `type`, each as its position and the value of `key`.
std::vector<std::pair<size_t, std::string>> blocks_of(const json& message, const char* type,
                                                      const char* key) {
  std::vector<std::pair<size_t, std::string>> blocks;
  const json content = message.value("content", json());
  if (!content.is_array()) return blocks;
  for (size_t i = 0; i < content.size(); ++i)
    if (content[i].is_object() && content[i].value("type", "") == type)
      blocks.emplace_back(i, content[i].value(key, ""));
  return blocks;
}

bool has_id(const std::vector<std::pair<size_t, std::string>>& blocks, const std::string& id) {
  return std::any_of(blocks.begin(), blocks.end(), [&](const auto& b) { return b.second == id; });
}

bool has_role(const json& messages, size_t i, const char* role) {
  return i < messages.size() && messages[i].is_object() && messages[i].value("role", "") == role;
}

// The service's words for a tool_result without its tool_use right before it.
std::optional<Reply> refuse_unexpected_results(const json& messages, size_t i) {
  const auto uses = has_role(messages, i - 1, "assistant")
                        ? blocks_of(messages[i - 1], "tool_use", "id")
                        : std::vector<std::pair<size_t, std::string>>{};
  for (const auto& [at, id] : blocks_of(messages[i], "tool_result", "tool_use_id"))
    if (!has_id(uses, id))
      return Reply::failure(400, "invalid_request_error",
                            "messages." + std::to_string(i) + ".content." + std::to_string(at) +
                                ": unexpected `tool_use_id` found in `tool_result` blocks: " + id +
                                ". Each `tool_result` block must have a corresponding "
                                "`tool_use` block in the previous message.");
  return std::nullopt;
}

// The service's words for tool_use blocks the next message does not answer.
std::optional<Reply> refuse_unanswered_uses(const json& messages, size_t i) {
  const auto results = has_role(messages, i + 1, "user")
                           ? blocks_of(messages[i + 1], "tool_result", "tool_use_id")
                           : std::vector<std::pair<size_t, std::string>>{};
  std::string missing;
  for (const auto& use : blocks_of(messages[i], "tool_use", "id"))
    if (!has_id(results, use.second)) missing += (missing.empty() ? "" : ", ") + use.second;
  if (missing.empty()) return std::nullopt;
  return Reply::failure(400, "invalid_request_error",
                        "messages." + std::to_string(i) +
                            ": `tool_use` ids were found without `tool_result` blocks "
                            "immediately after: " +
                            missing +
                            ". Each `tool_use` block must have a corresponding "
                            "`tool_result` block in the next message.");
}

std::optional<Reply> refuse_unpaired_tools(const json& messages) {
  for (size_t i = 0; i < messages.size(); ++i) {
    if (has_role(messages, i, "user"))
      if (auto refused = refuse_unexpected_results(messages, i)) return refused;
    if (has_role(messages, i, "assistant"))
      if (auto refused = refuse_unanswered_uses(messages, i)) return refused;
  }
  return std::nullopt;
}

// Anthropic streams no text block for an answer that is only calls.
bool has_text_block(const Reply& reply) {
  return !reply.text.empty() || reply.tool_calls.empty();
}

std::string block_stop(const StreamContext& ctx, int index) {
  return sse_event(ctx, "content_block_stop", {{"type", "content_block_stop"}, {"index", index}});
}

std::string input_json_delta(const StreamContext& ctx, int index, const std::string& fragment) {
  return sse_event(ctx, "content_block_delta",
                   {{"type", "content_block_delta"},
                    {"index", index},
                    {"delta", {{"type", "input_json_delta"}, {"partial_json", fragment}}}});
}

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
    return refuse_unpaired_tools(body["messages"]);
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
    std::vector<std::string> events = {
        sse_event(ctx, "message_start", {{"type", "message_start"}, {"message", message}})};
    if (has_text_block(reply))
      events.push_back(sse_event(ctx, "content_block_start",
                                 {{"type", "content_block_start"},
                                  {"index", 0},
                                  {"content_block", {{"type", "text"}, {"text", ""}}}}));
    events.push_back(sse_event(ctx, "ping", {{"type", "ping"}}));
    return events;
  }

  std::string delta(const StreamContext& ctx, const std::string& fragment) const override {
    return sse_event(ctx, "content_block_delta",
                     {{"type", "content_block_delta"},
                      {"index", 0},
                      {"delta", {{"type", "text_delta"}, {"text", fragment}}}});
  }

  // The text block ends before the first tool_use block starts.
  std::vector<std::string> tool_calls(const StreamContext& ctx, const Reply& reply) const override {
    std::vector<std::string> events;
    if (reply.tool_calls.empty()) return events;
    int index = 0;
    if (has_text_block(reply)) events.push_back(block_stop(ctx, index++));
    for (const FakeToolCall& call : reply.tool_calls) {
      json block = {
          {"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", json::object()}};
      events.push_back(
          sse_event(ctx, "content_block_start",
                    {{"type", "content_block_start"}, {"index", index}, {"content_block", block}}));
      events.push_back(input_json_delta(ctx, index, ""));
      for (const std::string& fragment : split_utf8(call.arguments, call.fragments))
        events.push_back(input_json_delta(ctx, index, fragment));
      events.push_back(block_stop(ctx, index++));
    }
    return events;
  }

  std::vector<std::string> closing(const StreamContext& ctx, const Reply& reply) const override {
    const std::string normal_end = reply.tool_calls.empty() ? "end_turn" : "tool_use";
    json delta = {{"type", "message_delta"},
                  {"delta",
                   {{"stop_reason", reply.finish.empty() ? normal_end : reply.finish},
                    {"stop_sequence", nullptr}}}};
    if (reply.usage) delta["usage"] = {{"output_tokens", reply.usage->output_tokens}};
    std::vector<std::string> events;
    if (reply.tool_calls.empty()) events.push_back(block_stop(ctx, 0));
    events.push_back(sse_event(ctx, "message_delta", delta));
    events.push_back(sse_event(ctx, "message_stop", {{"type", "message_stop"}}));
    return events;
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
