// OpenAI Chat Completions: chat.completion.chunk events, a role-only first delta with
// "content":"", the finish chunk, the usage chunk with "choices":[] (only when asked
// for with stream_options.include_usage), then the literal "data: [DONE]".
// Tool calls stream after the text, one call after another: a chunk that opens the call
// (index, id, type, name, "arguments":""), then a chunk per arguments fragment (index
// and the fragment alone); the finish word is then "tool_calls".
#include "tests/fakes/dialect.h"

#include <set>

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
    if (auto refused = refuse_common(request, api_path(), false)) return refused;
    return refuse_tool_messages(request.json()["messages"]);
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

  std::vector<std::string> tool_calls(const StreamContext& ctx, const Reply& reply) const override {
    std::vector<std::string> events;
    for (size_t i = 0; i < reply.tool_calls.size(); ++i) {
      const FakeToolCall& call = reply.tool_calls[i];
      json opens = {{"index", i},
                    {"id", call.id},
                    {"type", "function"},
                    {"function", {{"name", call.name}, {"arguments", ""}}}};
      events.push_back(tool_chunk(ctx, reply, opens));
      for (const std::string& fragment : split_utf8(call.arguments, call.fragments))
        events.push_back(
            tool_chunk(ctx, reply, {{"index", i}, {"function", {{"arguments", fragment}}}}));
    }
    return events;
  }

  std::vector<std::string> closing(const StreamContext& ctx, const Reply& reply) const override {
    const std::string finish = !reply.finish.empty()      ? reply.finish
                               : reply.tool_calls.empty() ? "stop"
                                                          : "tool_calls";
    std::vector<std::string> events = {chunk(ctx, json::object(), finish)};
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
  // What OpenAI refuses of a conversation with tools: a tool message that answers no
  // call of the assistant message before it, and calls left without an answer before
  // the next message that is not a tool's.
  static std::optional<Reply> refuse_tool_messages(const json& messages) {
    std::set<std::string> asked, unanswered;  // the calls of the last assistant message
    for (size_t i = 0; i < messages.size(); ++i) {
      const json& message = messages[i];
      const std::string role = message.value("role", "");
      if (role == "tool") {
        const std::string id = message.value("tool_call_id", "");
        if (asked.empty())
          return invalid(
              "Invalid parameter: messages with role 'tool' must be a response to a "
              "preceeding message with 'tool_calls'.");
        if (asked.count(id) == 0)
          return invalid("Invalid parameter: 'tool_call_id' of '" + id +
                         "' not found in 'tool_calls' of previous message.");
        unanswered.erase(id);
        continue;
      }
      if (auto refused = unanswered_calls(unanswered)) return refused;
      asked.clear();
      if (role == "assistant" && message.contains("tool_calls"))
        for (const json& call : message["tool_calls"]) asked.insert(call.value("id", ""));
      unanswered = asked;
    }
    return unanswered_calls(unanswered);
  }

  static std::optional<Reply> unanswered_calls(const std::set<std::string>& ids) {
    if (ids.empty()) return std::nullopt;
    std::string list;
    for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
    return invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: " +
        list);
  }

  static Reply invalid(const std::string& message) { return Reply::failure(400, "", message); }

  static std::string tool_chunk(const StreamContext& ctx, const Reply& reply, json call) {
    if (reply.omit_tool_index) call.erase("index");
    return chunk(ctx, {{"tool_calls", json::array({call})}}, nullptr);
  }

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
